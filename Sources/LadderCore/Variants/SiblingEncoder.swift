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
/// resized picture as the JPEG rung, at the qualities the calibration gives for the JPEG's
/// (`SiblingEncoding`), and JPEG XL from the finished JPEG rung itself, losslessly. A sibling
/// that is not smaller than its JPEG is dropped: at equal quality it would only cost bytes.
package struct SiblingEncoder: Sendable {
    package let recipe: VariantRecipe

    package init(recipe: VariantRecipe) { self.recipe = recipe }

    /// The siblings encoded from pixels, made while the picture is in memory.
    package func encodePictureSiblings(_ picture: Image) throws(ImagingError) -> [RenderedSibling] {
        var siblings: [RenderedSibling] = []
        for format in recipe.formats {
            let encoding = recipe.siblingEncoding(format)
            switch format {
            case .webp:
                siblings.append(
                    RenderedSibling(
                        format: format,
                        bytes: try picture.webpEncoded(quality: encoding.quality, effort: encoding.effort)))
            case .avif:
                siblings.append(
                    RenderedSibling(
                        format: format,
                        bytes: try picture.avifEncoded(
                            quality: encoding.quality, effort: encoding.effort, fullChroma: encoding.fullChroma)))
            case .jxl:
                continue
            }
        }
        return siblings
    }

    /// Adds the siblings made from the finished JPEG rung `jpeg` to `pictureSiblings`, and keeps
    /// those smaller than the JPEG, in `SiblingFormat` order; the others are returned as skipped.
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
        return (kept, all.filter { $0.bytes.count >= jpeg.count }.map(\.format))
    }
}
