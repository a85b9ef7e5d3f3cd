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
