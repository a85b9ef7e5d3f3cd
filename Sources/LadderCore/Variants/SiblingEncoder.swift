package import LadderImaging

/// One format sibling of a rendered variant: the same picture as the JPEG rung, in another format.
package struct RenderedSibling: Sendable, Equatable {
    package var format: SiblingFormat
    package var bytes: [UInt8]

    package init(format: SiblingFormat, bytes: [UInt8]) {
        self.format = format
        self.bytes = bytes
    }
}

/// Makes a variant's format siblings (`"formats"` of its recipe): WebP and AVIF from the same
/// resized picture as the JPEG rung, at a quality at which they are at least as close to that
/// picture as the JPEG by butteraugli and by SSIM (`SiblingEncoding`: searched per picture with
/// `SiblingProbe`, or the calibration's for large variants), and JPEG XL from the finished JPEG
/// rung itself, losslessly. A sibling that is not smaller than its JPEG at equal quality is
/// dropped: it would only cost bytes.
package struct SiblingEncoder: Sendable {
    package let recipe: VariantRecipe

    package init(recipe: VariantRecipe) { self.recipe = recipe }

    /// The siblings encoded from pixels, made while the picture is in memory; `jpeg` is a JPEG
    /// that decodes to the rung's pixels (the rung, or the baseline encode its scans are written
    /// from). A sibling whose search found no quality that holds is left out; `finish` counts
    /// it as skipped.
    package func encodePictureSiblings(_ picture: Image, jpeg: [UInt8]) throws(ImagingError) -> [RenderedSibling] {
        var siblings: [RenderedSibling] = []
        var probe: SiblingProbe?
        var reference: ProbeReference?
        for format in recipe.formats where format != .jxl {
            let encoding = recipe.siblingEncoding(format)
            let encode = { (quality: Int) throws(ImagingError) -> [UInt8] in
                format == .webp
                    ? try picture.webpEncoded(quality: quality, effort: encoding.effort)
                    : try picture.avifEncoded(
                        quality: quality, effort: encoding.effort, fullChroma: encoding.fullChroma)
            }
            guard encoding.probes else {
                siblings.append(RenderedSibling(format: format, bytes: try encode(encoding.quality)))
                continue
            }
            if reference == nil { reference = try ProbeReference(picture) }
            guard let reference else { continue }
            if probe == nil { probe = SiblingProbe(jpeg: try reference.closeness(of: jpeg), jpegBytes: jpeg.count) }
            let outcome = try probe?.search(from: encoding.quality, encode: encode, measure: reference.closeness)
            if let kept = outcome?.kept { siblings.append(RenderedSibling(format: format, bytes: kept.bytes)) }
        }
        return siblings
    }

    /// Adds the siblings made from the finished JPEG rung `jpeg` to `pictureSiblings`, and keeps
    /// those smaller than the JPEG, in `SiblingFormat` order; the others, and the formats whose
    /// search found no quality that holds, are returned as skipped.
    package func finish(
        _ pictureSiblings: [RenderedSibling], jpeg: [UInt8]
    ) throws(ImagingError) -> (kept: [RenderedSibling], skipped: [SiblingFormat]) {
        var all = pictureSiblings
        if recipe.formats.contains(.jxl) {
            let encoding = recipe.siblingEncoding(.jxl)
            all.append(
                RenderedSibling(format: .jxl, bytes: try JPEGXL.recompressing(jpeg: jpeg, effort: encoding.effort)))
        }
        all.sort { $0.format < $1.format }
        let kept = all.filter { $0.bytes.count < jpeg.count }
        let skipped = recipe.formats.filter { format in !kept.contains { $0.format == format } }
        return (kept, skipped)
    }
}
