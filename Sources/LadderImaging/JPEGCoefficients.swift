internal import CLadderJPEG

/// The quantized DCT coefficients of one JPEG, read once, from which the same image can be
/// written with any scan script without loss (libjpeg's transcoding API, as jpegtran uses it):
/// every version decodes to the same pixels and keeps every marker of the source.
///
/// Not `Sendable`: the libjpeg object belongs to the function that made it.
package final class JPEGCoefficients {
    private let handle: OpaquePointer
    /// The number of color components: 1 for grayscale, 3 for YCbCr.
    package let components: Int

    /// Whether a sample was taken (see `init(reading:sample:)`).
    package let isSampled: Bool

    /// A sample of an image: a grid of `across` x `down` tiles, each `columns` x `rows` iMCUs
    /// (an iMCU is 16x16 pixels for 4:2:0, 8x8 for 4:4:4), taken from the middles of equal
    /// cells of the image, clear of its last iMCU row and column (which may be partly
    /// padding), and put side by side in that order: a smaller image with the same detail.
    package struct Sample: Sendable, Equatable {
        package var across: Int
        package var down: Int
        package var columns: Int
        package var rows: Int

        package init(across: Int, down: Int, columns: Int, rows: Int) {
            (self.across, self.down, self.columns, self.rows) = (across, down, columns, rows)
        }
    }

    /// Reads `bytes`; with a `sample`, also keeps that sample of the image. The tiles must fit
    /// clear of the image's last iMCU row and column (`down` x `rows` iMCU rows at most of the
    /// others, and alike for columns), or the read fails.
    package init(reading bytes: [UInt8], sample: Sample? = nil) throws(ImagingError) {
        var message = [CChar](repeating: 0, count: 256)
        // The coefficients take the render buffer's pages while it is free (the picture they
        // were encoded from is released by then), and give it back when they go.
        let arena = RenderBuffer.shared.lendAll()
        func read(_ grid: UnsafePointer<ladder_coefficient_sample>?) -> OpaquePointer? {
            bytes.withUnsafeBufferPointer {
                ladder_coefficients_read(
                    $0.baseAddress!, $0.count, grid, arena?.base, arena?.capacity ?? 0, &message, message.count)
            }
        }
        let handle: OpaquePointer?
        if let sample {
            let grid = ladder_coefficient_sample(
                tiles_across: Int32(sample.across), tiles_down: Int32(sample.down),
                tile_columns: Int32(sample.columns), tile_rows: Int32(sample.rows))
            handle = withUnsafePointer(to: grid) { read($0) }
        } else {
            handle = read(nil)
        }
        guard let handle else {
            if arena != nil { RenderBuffer.shared.giveBack() }
            throw ImagingError(operation: "read JPEG coefficients", path: nil, reason: cString(message))
        }
        self.handle = handle
        holdsRenderBuffer = arena != nil
        isSampled = sample != nil
        components = Int(ladder_coefficients_components(handle))
    }

    /// Whether the coefficients live in the render buffer (`RenderBuffer`).
    private let holdsRenderBuffer: Bool

    deinit {
        ladder_coefficients_free(handle)
        if holdsRenderBuffer { RenderBuffer.shared.giveBack() }
    }

    /// The image written with exactly the scans of `scans`.
    package func written(scans: [JPEGScan]) throws(ImagingError) -> [UInt8] {
        try write(scans.map(\.libjpegScan), count: Int32(scans.count), sample: false)
    }

    /// The sample (see `init(reading:sample:)`) written with exactly the scans of
    /// `scans`, without the source's markers; the whole image when no sample was taken.
    package func sampleWritten(scans: [JPEGScan]) throws(ImagingError) -> [UInt8] {
        try write(scans.map(\.libjpegScan), count: Int32(scans.count), sample: isSampled)
    }

    /// The image written with libjpeg's default progression (`jpeg_simple_progression`: 10 scans
    /// for YCbCr, 6 for grayscale), the reference that scripts are compared with.
    package func writtenWithDefaultProgression() throws(ImagingError) -> [UInt8] {
        try write([], count: -1, sample: false)
    }

    private func write(_ scans: [ladder_jpeg_scan], count: Int32, sample: Bool) throws(ImagingError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let status = scans.withUnsafeBufferPointer {
            ladder_coefficients_write(
                handle, sample ? 1 : 0, $0.baseAddress, count, &output, &length, &message, message.count)
        }
        guard status == 0, let output else {
            throw ImagingError(operation: "write JPEG coefficients", path: nil, reason: cString(message))
        }
        defer { Platform.free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
