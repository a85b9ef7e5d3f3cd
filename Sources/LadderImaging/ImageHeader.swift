internal import CLadder
internal import CVips

/// How much damage a decoder may find before the file is refused.
package enum DecodeStrictness: String, Sendable, CaseIterable, Codable {
    /// Any decoder warning (truncated data, corrupt Huffman codes, extraneous bytes) fails.
    case warning
    /// Errors fail; truncation counts as an error.
    case error
    /// Only truncated data and errors fail.
    case truncated

    var failOn: VipsFailOn {
        switch self {
        case .warning: VIPS_FAIL_ON_WARNING
        case .error: VIPS_FAIL_ON_ERROR
        case .truncated: VIPS_FAIL_ON_TRUNCATED
        }
    }
}

/// What an image file's header says, read without decoding its pixels.
package struct ImageHeader: Sendable, Equatable {
    /// The libvips loader that reads it, without the "_buffer" suffix: "jpegload", "pngload"...
    package var loader: String
    /// The size as stored in the file, before the orientation is applied.
    package var storedSize: PixelSize
    /// The EXIF orientation libvips will apply, 1...8 (1 when absent or invalid).
    package var orientation: Int
    /// Bands, including alpha.
    package var bands: Int
    package var hasAlpha: Bool
    /// libvips' name for the color space: "srgb", "b-w", "cmyk", "rgb16", "grey16", "lab"...
    package var colorSpace: String
    /// Bits per sample: 8, 16, 32...
    package var bitsPerSample: Int
    /// The embedded ICC profile, when there is one.
    package var iccProfile: [UInt8]?
    /// Pages or animation frames in the file.
    package var pageCount: Int
    /// True for a progressive (multi-scan) JPEG.
    package var isProgressiveJPEG: Bool
    /// The EXIF block parsed with libexif, when there is one.
    package var exif: ExifMetadata?
    /// The XMP packet, when there is one: which of its fields name people, places or devices.
    package var xmp: XMPPacket?
    /// The IPTC-IIM block, when there is one: which of its datasets hold a value.
    package var iptc: IPTCRecord?

    /// The size once the orientation is applied.
    package var size: PixelSize { orientation >= 5 ? storedSize.transposed : storedSize }

    /// True for grayscale images (with or without alpha).
    package var isGrayscale: Bool { bands - (hasAlpha ? 1 : 0) < 3 }

    /// True for CMYK images.
    package var isCMYK: Bool { colorSpace == "cmyk" }

    /// The image format, named after its loader: "jpeg", "png", "webp", "gif", "tiff", "heif"...
    package var format: String {
        loader.hasSuffix("load") ? String(loader.dropLast(4)) : loader
    }

    /// Reads the header of an encoded image held in memory. Without `metadata`, its EXIF, XMP and
    /// IPTC blocks are left unparsed (`exif`, `xmp` and `iptc` are nil): Foundation's XML parser,
    /// which reads XMP, must not run on several threads at once.
    ///
    /// `format`, when the caller sniffed it (`ImageFormat.sniff`), lets a JPEG or PNG go straight
    /// to its loader instead of libvips asking every loader whether the bytes are theirs, which
    /// costs as much as reading a small PNG's header. A file its loader refuses is read again the
    /// usual way, so that the error is the one libvips gives for it.
    package init(reading bytes: [UInt8], format: ImageFormat? = nil, metadata: Bool = true) throws(ImagingError) {
        let result: Result<ImageHeader, ImagingError> = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return .failure(ImagingError(operation: "read the header", path: nil, reason: "the file is empty"))
            }
            if let loader = format?.bufferLoader {
                if let image = ladder_vips_load_buffer(loader, base, buffer.count) {
                    defer { g_object_unref(image) }
                    return .success(ImageHeader(image, metadata: metadata))
                }
                vips_error_clear()
            }
            guard let image = ladder_vips_image_new_from_buffer(base, buffer.count, "[access=sequential]") else {
                return .failure(ImagingError(operation: "read the header", path: nil, reason: takeVipsError()))
            }
            defer { g_object_unref(image) }
            return .success(ImageHeader(image, metadata: metadata))
        }
        self = try result.get()
    }

    private init(_ image: UnsafeMutablePointer<VipsImage>, metadata: Bool) {
        func string(_ name: String) -> String? {
            var value: UnsafePointer<CChar>?
            guard vips_image_get_typeof(image, name) != 0, vips_image_get_string(image, name, &value) == 0,
                let value
            else { return nil }
            return String(cString: value)
        }
        func int(_ name: String) -> Int? {
            var value: Int32 = 0
            guard vips_image_get_typeof(image, name) != 0, vips_image_get_int(image, name, &value) == 0 else {
                return nil
            }
            return Int(value)
        }
        func blob(_ name: String) -> [UInt8]? {
            var data: UnsafeRawPointer?
            var length = 0
            guard vips_image_get_typeof(image, name) != 0, vips_image_get_blob(image, name, &data, &length) == 0,
                let data, length > 0
            else { return nil }
            return Array(UnsafeRawBufferPointer(start: data, count: length))
        }

        var loader = string("vips-loader") ?? "unknown"
        for suffix in ["_buffer", "_source"] where loader.hasSuffix(suffix) {
            loader = String(loader.dropLast(suffix.count))
        }
        let orientation = int("orientation") ?? 1
        let interpretation = vips_image_get_interpretation(image)
        let space = vips_enum_nick(vips_interpretation_get_type(), Int32(interpretation.rawValue))
        self.loader = loader
        self.storedSize = PixelSize(
            width: Int(vips_image_get_width(image)), height: Int(vips_image_get_height(image)))
        self.orientation = (1...8).contains(orientation) ? orientation : 1
        self.bands = Int(vips_image_get_bands(image))
        self.hasAlpha = vips_image_hasalpha(image) != 0
        self.colorSpace = space.map { String(cString: $0) } ?? "unknown"
        self.bitsPerSample = Int(vips_format_sizeof(vips_image_get_format(image))) * 8
        self.iccProfile = blob("icc-profile-data")
        self.pageCount = int("n-pages") ?? 1
        self.isProgressiveJPEG = (int("jpeg-multiscan") ?? 0) != 0
        if metadata {
            self.exif = blob("exif-data").flatMap { ExifMetadata(parsing: $0) }
            self.xmp = blob("xmp-data").map { XMPPacket(parsing: $0) }
            self.iptc = blob("iptc-data").map { IPTCRecord(parsing: $0) }
        }

    }
}
