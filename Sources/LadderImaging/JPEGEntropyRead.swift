internal import CLadderJPEG

/// What libjpeg-turbo finds reading a JPEG's entropy-coded data to its end of image (Wraps
/// jpeg_start_decompress() at 1/8 scale, jpeg_skip_scanlines(), jpeg_read_scanlines() for the
/// last row and jpeg_finish_decompress()).
///
/// libjpeg reports damaged entropy data ("Corrupt JPEG data: N extraneous bytes before marker",
/// bad Huffman codes, a premature end) only as warnings, and only once it reaches the damage;
/// a decoder that stops at the last row it needs (as libvips does) never sees some of them.
/// Reading every scan to the end of image sees them all, at the cost of entropy decoding: the
/// skipped rows of a single-scan file are entropy-decoded and discarded with no inverse DCT at
/// all, and only the last row is made (at 1/8 scale, an inverse DCT of the DC term only).
package struct JPEGEntropyRead: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var components: Int
    package var isProgressive: Bool
    package var isArithmetic: Bool
    /// The scans libjpeg read: its own count, independent of ladder's segment walk.
    package var scans: Int
    /// libjpeg's warnings on the way to the end of image.
    package var warnings: Int
    /// The text of the last warning, when there was one.
    package var lastWarning: String?

    /// Reads `bytes` to the end of image; libjpeg's coefficient buffers may use at most
    /// `memoryLimit` bytes (a larger image fails with libjpeg's error instead).
    package init(reading bytes: [UInt8], memoryLimit: Int) throws(ImagingError) {
        var result = ladder_jpeg_read_result()
        let status = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return -2 }
            return ladder_jpeg_read_to_end(base, buffer.count, memoryLimit, &result)
        }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard status == 0 else {
            throw ImagingError(
                operation: "read JPEG data", path: nil, reason: status == -2 ? "the file is empty" : message)
        }
        width = Int(result.width)
        height = Int(result.height)
        components = Int(result.components)
        isProgressive = result.progressive != 0
        isArithmetic = result.arithmetic != 0
        scans = Int(result.scans)
        warnings = Int(result.warnings)
        lastWarning = warnings > 0 && !message.isEmpty ? message : nil
    }
}
