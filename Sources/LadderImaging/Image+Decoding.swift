internal import CLadder
internal import CVips
package import LadderManifest

extension Image {
    /// Decodes an image held in memory into display-ready pixels: upright (EXIF orientation
    /// applied), 8-bit sRGB (or 8-bit grayscale for grayscale sources), alpha flattened onto
    /// `background`, fitted inside `box` without upscaling, first page only, in memory; and
    /// whether any pixel was less than opaque (many files carry an alpha channel they do not use).
    ///
    /// libvips does the work in one pipeline (Wraps vips_thumbnail_buffer()), shrinking on load
    /// where the format allows it, so a large JPEG is never decoded at full size when a smaller
    /// box is asked for. Both sides are scaled by one factor and rounded, as vipsthumbnail does.
    ///
    /// - Parameters:
    ///   - header: the file's header, read beforehand; it decides the color conversion.
    ///   - box: the largest size wanted; the result fits inside it.
    ///   - strictness: which decoder complaints refuse the file.
    package static func decode(
        _ bytes: [UInt8], header: ImageHeader, fitting box: PixelSize, background: RGBColor,
        strictness: DecodeStrictness
    ) throws(ImagingError) -> (image: Image, isTransparent: Bool) {
        try decode(
            bytes, header: header, size: box, mode: VIPS_SIZE_DOWN, background: background, strictness: strictness)
    }

    /// Decodes as `decode(_:header:fitting:background:strictness:)` does, to exactly `size`
    /// (upright), each side scaled by its own factor: what a reference resampler does to reach a
    /// size whose sides do not scale by the same factor to whole pixels. With one factor and
    /// rounding, libvips can place the picture up to half a pixel off along one side, which shows
    /// as blur against the reference (several tenths of a dB on camera photos); a resize after
    /// the decode to fix the size would cost a second pass over the picture.
    ///
    /// - Parameter size: at most the image's upright size on each side (never an upscale).
    package static func decode(
        _ bytes: [UInt8], header: ImageHeader, to size: PixelSize, background: RGBColor,
        strictness: DecodeStrictness
    ) throws(ImagingError) -> (image: Image, isTransparent: Bool) {
        let decoded = try decode(
            bytes, header: header, size: size, mode: VIPS_SIZE_FORCE, background: background, strictness: strictness)
        guard decoded.image.size == size else {
            throw ImagingError(
                operation: "decode", path: nil, reason: "asked for \(size), libvips made \(decoded.image.size)")
        }
        return decoded
    }

    private static func decode(
        _ bytes: [UInt8], header: ImageHeader, size box: PixelSize, mode: VipsSize, background: RGBColor,
        strictness: DecodeStrictness
    ) throws(ImagingError) -> (image: Image, isTransparent: Bool) {
        // Color sources with an embedded profile go through it to sRGB. Untagged sources are
        // treated as sRGB already (no round trip through a color engine), CMYK ones are
        // converted by libvips' own CMYK path (which uses the embedded profile when present),
        // and grayscale stays grayscale.
        let exportProfile: String? =
            header.iccProfile != nil && !header.isGrayscale && !header.isCMYK ? "srgb" : nil
        let result: Result<(image: Image, isTransparent: Bool), ImagingError> = bytes.withUnsafeBytes { buffer in
            do throws(ImagingError) {
                guard let base = buffer.baseAddress else {
                    throw ImagingError(operation: "decode", path: nil, reason: "the file is empty")
                }
                var output: UnsafeMutablePointer<VipsImage>?
                guard
                    ladder_vips_thumbnail_buffer(
                        base, buffer.count, &output, Int32(box.width), Int32(box.height), mode, "",
                        exportProfile, strictness.failOn) == 0, let output
                else {
                    throw ImagingError(operation: "decode", path: nil, reason: takeVipsError())
                }
                // libvips reads the buffer lazily: everything up to the copy into memory must
                // happen while the bytes are still borrowed.
                var image = try Image(consuming: output).inDisplaySpace()
                var isTransparent = false
                if image.hasAlpha {
                    image = try image.inMemory()
                    isTransparent = try image.hasTransparentPixels()
                }
                return .success((try image.flattened(onto: background).inRenderMemory(), isTransparent))

            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
