internal import CLadder
internal import CVips

/// Making images from pixel values, giving them metadata, and reading pixels back: what tests,
/// replay frames and reports need besides the pipeline itself.
extension Image {
    /// How pixel values are to be understood.
    package enum ColorSpace: Sendable {
        case sRGB
        case grayscale
        /// 16 bits a sample, sRGB primaries.
        case rgb16
        /// 16 bits a sample, grayscale.
        case grey16

        var interpretation: VipsInterpretation {
            switch self {
            case .sRGB: VIPS_INTERPRETATION_sRGB
            case .grayscale: VIPS_INTERPRETATION_B_W
            case .rgb16: VIPS_INTERPRETATION_RGB16
            case .grey16: VIPS_INTERPRETATION_GREY16
            }
        }
    }

    /// An 8-bit image from interleaved samples, rows top to bottom
    /// (Wraps vips_image_new_from_memory_copy()).
    package convenience init(
        pixels: [UInt8], width: Int, height: Int, bands: Int, space: ColorSpace
    ) throws(ImagingError) {
        guard pixels.count == width * height * bands else {
            throw ImagingError(
                operation: "make an image", path: nil,
                reason: "\(pixels.count) samples for \(width)x\(height)x\(bands)")
        }
        let made = pixels.withUnsafeBytes {
            vips_image_new_from_memory_copy(
                $0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }
        guard let made else { throw ImagingError(operation: "make an image", path: nil, reason: takeVipsError()) }
        let plain = Image(consuming: made)
        var copy: UnsafeMutablePointer<VipsImage>?
        guard ladder_vips_copy(plain.pointer, &copy, space.interpretation) == 0, let copy else {
            throw ImagingError(operation: "make an image", path: nil, reason: takeVipsError())
        }
        self.init(consuming: copy)
    }

    /// Decodes an encoded image as it is stored: no orientation, color or size change, first page.
    package convenience init(decoding bytes: [UInt8]) throws(ImagingError) {
        let result: Result<UnsafeMutablePointer<VipsImage>, ImagingError> = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress,
                let loaded = ladder_vips_image_new_from_buffer(base, buffer.count, "")
            else { return .failure(ImagingError(operation: "decode", path: nil, reason: takeVipsError())) }
            // Copy into memory while the bytes are borrowed.
            let copy = vips_image_copy_memory(loaded)
            g_object_unref(loaded)
            guard let copy else {
                return .failure(ImagingError(operation: "decode", path: nil, reason: takeVipsError()))
            }
            return .success(copy)
        }
        self.init(consuming: try result.get())
    }

    /// The samples of one pixel (the image must be in memory and 8-bit).
    package func pixel(x: Int, y: Int) throws(ImagingError) -> [UInt8] {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
        let bands = self.bands
        let width = self.width
        return try withPixels { raw in
            let start = (y * width + x) * bands
            return Array(raw[start..<(start + bands)])
        }
    }

    /// A copy carrying extra metadata: libvips string fields (such as "exif-ifd0-Artist" or
    /// "exif-ifd3-GPSLatitude", which its savers write as EXIF), integer fields (such as
    /// "orientation") and binary fields (such as "jpeg-thumbnail-data" or "icc-profile-data").
    package func withMetadata(
        strings: [String: String] = [:], integers: [String: Int] = [:], blobs: [String: [UInt8]] = [:]
    ) throws(ImagingError) -> Image {
        let copy = try apply("copy") { ladder_vips_copy(pointer, $0, vips_image_get_interpretation(pointer)) }
        for (name, value) in strings { vips_image_set_string(copy.pointer, name, value) }
        for (name, value) in integers { vips_image_set_int(copy.pointer, name, Int32(value)) }
        for (name, value) in blobs {
            value.withUnsafeBytes { vips_image_set_blob_copy(copy.pointer, name, $0.baseAddress, $0.count) }
        }
        return copy
    }

    /// Transforms the pixels to an ICC profile: a built-in one ("srgb", "p3", "cmyk") or a file
    /// (Wraps vips_icc_transform()); the result carries the profile.
    package func transformed(toProfile profile: String, from inputProfile: String? = nil) throws(ImagingError) -> Image
    {
        try apply("transform to \(profile)") { ladder_vips_icc_transform(pointer, $0, profile, inputProfile) }
    }

    /// Converts to another color space by libvips' own formulas (Wraps vips_colourspace()).
    package func converted(to space: ColorSpace) throws(ImagingError) -> Image {
        try apply("convert color") { ladder_vips_colorspace(pointer, $0, space.interpretation) }
    }

    /// Stacks frames into one animation, for savers that write several pages (GIF, WebP).
    package static func animation(frames: [Image]) throws(ImagingError) -> Image {
        guard let first = frames.first else {
            throw ImagingError(operation: "make an animation", path: nil, reason: "no frames")
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map { $0.pointer }
        var output: UnsafeMutablePointer<VipsImage>?
        let status = pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafeMutablePointer<VipsImage>.self, capacity: buffer.count) {
                ladder_vips_join_vertically($0, Int32(buffer.count), &output)
            }
        }
        guard status == 0, let output else {
            throw ImagingError(operation: "make an animation", path: nil, reason: takeVipsError())
        }
        let joined = Image(consuming: output)
        return try joined.withMetadata(integers: ["page-height": first.height, "delay": 100])
    }
}
