internal import CLadder

/// The quantized DCT coefficients of one JPEG, read once, from which the same image can be
/// written with any scan script without loss (libjpeg's transcoding API, as jpegtran uses it):
/// every version decodes to the same pixels and keeps every marker of the source.
///
/// Not `Sendable`: the libjpeg object belongs to the function that made it.
public final class JPEGCoefficients {
    private let handle: OpaquePointer
    /// The number of color components: 1 for grayscale, 3 for YCbCr.
    public let components: Int

    /// Whether a sample was taken (`sampleEvery` > 1).
    public let isSampled: Bool

    /// Reads `bytes`; with `sampleEvery` > 1, also keeps every `sampleEvery`-th row of iMCUs
    /// (16 pixel rows for 4:2:0, 8 otherwise) as a smaller image with the same detail.
    public init(reading bytes: [UInt8], sampleEvery: Int = 1) throws(ImagingError) {
        var message = [CChar](repeating: 0, count: 256)
        guard
            let handle = bytes.withUnsafeBufferPointer({
                ladder_coefficients_read($0.baseAddress!, $0.count, Int32(sampleEvery), &message, message.count)
            })
        else {
            throw ImagingError(operation: "read JPEG coefficients", path: nil, reason: cString(message))
        }
        self.handle = handle
        isSampled = sampleEvery > 1
        components = Int(ladder_coefficients_components(handle))
    }

    deinit { ladder_coefficients_free(handle) }

    /// The image written with exactly the scans of `scans`.
    public func written(scans: [JPEGScan]) throws(ImagingError) -> [UInt8] {
        try write(scans.map(\.libjpegScan), count: Int32(scans.count), sample: false)
    }

    /// The sample (see `init(reading:sampleEvery:)`) written with exactly the scans of
    /// `scans`, without the source's markers; the whole image when no sample was taken.
    public func sampleWritten(scans: [JPEGScan]) throws(ImagingError) -> [UInt8] {
        try write(scans.map(\.libjpegScan), count: Int32(scans.count), sample: isSampled)
    }

    /// The image written with libjpeg's default progression (`jpeg_simple_progression`: 10 scans
    /// for YCbCr, 6 for grayscale), the reference that scripts are compared with.
    public func writtenWithDefaultProgression() throws(ImagingError) -> [UInt8] {
        try write([], count: -1, sample: false)
    }

    private func write(_ scans: [ladder_jpeg_scan], count: Int32, sample: Bool) throws(ImagingError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let status = scans.withUnsafeBufferPointer {
            ladder_coefficients_write(handle, sample ? 1 : 0, $0.baseAddress, count, &output, &length, &message, message.count)
        }
        guard status == 0, let output else {
            throw ImagingError(operation: "write JPEG coefficients", path: nil, reason: cString(message))
        }
        defer { Platform.free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}

/// The luma pictures a browser shows after chosen scans of a progressive JPEG (block smoothing
/// on), optionally at a reduced DCT scale, with the byte count after which each scan can show.
public struct JPEGScanLumas: Sendable {
    public var width: Int
    public var height: Int
    /// One plane per requested scan, in the order requested.
    public var planes: [[UInt8]]
    /// `showableAt[k - 1]`: the bytes received when scan k can be shown (libjpeg has reached the
    /// next scan's header, or the end), for every scan up to the last requested.
    public var showableAt: [Int]

    /// Decodes `bytes` at 1/`scaleDenominator` of its size (1, 2, 4 or 8) and renders the scans
    /// listed in `scans` (1-based).
    public init(decoding bytes: [UInt8], scaleDenominator: Int, scans: [Int]) throws(ImagingError) {
        let last = scans.max() ?? 0
        var offsets = [Int](repeating: 0, count: max(1, last))
        var message = [CChar](repeating: 0, count: 256)
        var planes: UnsafeMutablePointer<UInt8>?
        var count: Int32 = 0
        var width: Int32 = 0
        var height: Int32 = 0
        let wanted = scans.map(Int32.init)
        let result = bytes.withUnsafeBufferPointer { data in
            wanted.withUnsafeBufferPointer { wanted in
                ladder_jpeg_scan_lumas(
                    data.baseAddress!, data.count, Int32(scaleDenominator), wanted.baseAddress!, Int32(wanted.count),
                    &planes, &offsets, &count, &width, &height, &message, message.count)
            }
        }
        guard result == 0, let planes else {
            throw ImagingError(operation: "decode scans", path: nil, reason: cString(message))
        }
        defer { Platform.free(planes) }
        self.width = Int(width)
        self.height = Int(height)
        let size = self.width * self.height
        self.planes = scans.indices.map { Array(UnsafeBufferPointer(start: planes + $0 * size, count: size)) }
        self.showableAt = Array(offsets.prefix(last))
    }
}
