internal import CLadder
internal import CLadderJPEG

/// What a PNG's or a JPEG's own header says of its frame, read with libpng or libjpeg instead of
/// libvips. `ladder verify` reads every source's header, and libvips makes a loader object for
/// each, under a process-wide lock: about 100 µs of one thread, however many threads ask. These
/// readers take no lock, so every thread reads headers at once (verify at 30,000 sources: 7.5 to
/// 8.3 s before, 4.1 to 4.9 s after).
///
/// It gives only what libvips' header gives for the same file (`ImageHeader`: the stored size,
/// the bands and whether one is alpha; the orientation is 1), and nil for whatever it cannot
/// vouch for: EXIF (the orientation is libvips' to read), a warning or an error from the reader,
/// a colour model it does not know. The caller then asks libvips.
package struct FrameHeader: Sendable, Equatable {
    package var format: ImageFormat
    /// The size as stored; with no EXIF, also the upright size.
    package var size: PixelSize
    /// Bands as libvips loads them, alpha included.
    package var bands: Int
    package var hasAlpha: Bool

    package init?(reading bytes: [UInt8], format: ImageFormat) {
        guard !bytes.isEmpty else { return nil }
        switch format {
        case .png:
            var result = ladder_png_header_result()
            guard bytes.withUnsafeBufferPointer({ ladder_png_header($0.baseAddress!, $0.count, &result) }) == 0,
                result.warnings == 0, result.has_exif == 0, result.width > 0, result.height > 0
            else { return nil }
            // libvips expands a palette to RGB, and a tRNS chunk to an alpha band.
            let colour: Int
            switch result.color_type {
            case 0: colour = 1  // gray
            case 4: colour = 2  // gray and alpha
            case 2, 3: colour = 3  // RGB, palette
            case 6: colour = 4  // RGB and alpha
            default: return nil
            }
            bands = colour + (result.has_transparency != 0 && colour % 2 == 1 ? 1 : 0)
            size = PixelSize(width: Int(result.width), height: Int(result.height))
        case .jpeg:
            var result = ladder_jpeg_header_result()
            guard bytes.withUnsafeBufferPointer({ ladder_jpeg_header($0.baseAddress!, $0.count, &result) }) == 0,
                result.warnings == 0, result.exif_segments == 0, [1, 3, 4].contains(result.components),
                result.width > 0, result.height > 0
            else { return nil }
            bands = Int(result.components)
            size = PixelSize(width: Int(result.width), height: Int(result.height))
        default:
            return nil
        }
        self.format = format
        // A JPEG's fourth band is CMYK's black, never alpha.
        hasAlpha = format == .png && bands % 2 == 0
    }
}
