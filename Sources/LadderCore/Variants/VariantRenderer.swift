package import LadderImaging

/// Turns a source's bytes into encoded variants.
package protocol SourceRendering: Sendable {
    /// Renders `variants` of the image in `bytes`.
    func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource
}

/// Renders in this process with libvips and libjpeg-turbo: one decode per source, to exactly the
/// size the largest requested variant needs (libvips shrinks JPEGs on load and reduces the rest
/// with its default Lanczos3, each side by its own factor); each smaller variant is resized from
/// that picture, with `resampling` (Lanczos3 over the whole reduction, no box shrink).
///
/// The choice was measured (docs/BENCHMARKS.md): against a reference made from the full decode
/// with Lanczos3 to the exact size, these thumbnails score at least vipsthumbnail's PSNR and
/// SSIM on every camera photo and render tried, and on a generated set of hard images all but two
/// pixel-pitch checkerboards (docs/BENCHMARKS.md, "The hard set"); the decode's own reduce to the
/// full size costs more than the decode itself, and no faster way matched its fidelity.
package struct VariantRenderer: SourceRendering {
    /// How smaller variants are resized from larger pictures. Part of every variant's
    /// fingerprint (`RecipeFingerprint`), so changing it makes existing variants again.
    package static let resampling = RendererIdentity.current.resampling

    /// The resampling this renderer uses; `VariantRenderer.resampling` unless a test asks
    /// for another.
    package let resampling: Image.Resampling

    package init(resampling: Image.Resampling = VariantRenderer.resampling) {
        self.resampling = resampling
    }

    package func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        var source = bytes
        return try render(releasing: &source, variants: variants, settings: settings)
    }

    /// Renders as `render(_:variants:settings:)` does, and lets go of the source's bytes as
    /// soon as they are decoded (`bytes` is left empty, also when the render fails): the encodes
    /// and the scan-script choice then run without them. Their memory is freed when the caller
    /// holds no other copy.
    package func render(
        releasing bytes: inout [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        defer { bytes = [] }
        try Self.checkBeforeDecoding(bytes, limits: settings.limits)
        let header: ImageHeader
        do {
            header = try ImageHeader(reading: bytes)
        } catch {
            throw RenderFailure(Self.oneLine(error))
        }
        try Self.checkHeader(header, limits: settings.limits)
        try StrictJPEGCheck.check(bytes, limits: settings.limits)
        do {
            let upright = header.size

            let targets = variants.map { ($0, $0.size(for: upright)) }
            // The decode only needs to be as large as the largest variant, measured by its scale.
            let base = VariantRecipe.decodeSize(for: variants, source: upright)
            let exif = header.exif?.encodedBlock(keeping: settings.keep)
            // Each variant is resized from the decoded picture itself, never from a smaller
            // variant: an 8-bit picture between two resizes clips the ringing of Lanczos3 around
            // hard edges at black and white, and the second resize turns what was clipped into
            // grey. What that costs and gains against the chain 2560 -> 640 -> 160 is in
            // docs/BENCHMARKS.md, "Choosing the resampling". The placeholder is made last, of the
            // smallest variant's file.
            // Every picture is made and encoded as far as it needs pixels, and released, before
            // any script is chosen: the choice works on coefficients alone, so a worker never
            // holds the decoded picture and the coefficients at once.
            var pending: [(VariantRecipe, PixelSize, bands: Int, PartlyEncodedVariant, [RenderedSibling])] = []
            let isTransparent: Bool
            do {
                // Exactly the planned size, each side scaled by its own factor (as the reference
                // resampler does), in the decode's own resize: no second pass to fix the size.
                let (picture, transparent) = try Image.decode(
                    bytes, header: header, to: base, background: settings.background,
                    strictness: settings.limits.failOn)
                bytes = []
                isTransparent = transparent
                for (recipe, size) in targets.sorted(by: { $0.1.pixelCount > $1.1.pixelCount }) {
                    var image = picture
                    if picture.size != size {
                        image = try picture.resized(to: size, with: resampling).inMemory()
                    }
                    let partial = try recipe.startEncoding(image, exif: exif)
                    // WebP and AVIF from the same picture as the JPEG, while it is in memory, each
                    // as close to it as the JPEG's pixels.
                    let siblings = try SiblingEncoder(recipe: recipe).encodePictureSiblings(
                        image, jpeg: partial.picturesJPEG)
                    pending.append((recipe, size, image.bands, partial, siblings))
                }
            }
            var rendered: [RenderedVariant] = []
            for (recipe, size, bands, partial, pictureSiblings) in pending {
                // A script chosen for what the screen shows needs the rung shown before it.
                let firstRung = partial.firstRung.flatMap { name in
                    pending.first { $0.0.name == name }?.3.done?.bytes
                }
                let encoded = try partial.finished(firstRung: firstRung)
                let siblings = try SiblingEncoder(recipe: recipe).finish(pictureSiblings, jpeg: encoded.bytes)
                rendered.append(
                    RenderedVariant(
                        name: recipe.name, size: size, progressive: recipe.progressive != nil,
                        scans: recipe.scanCount(components: bands), bytes: encoded.bytes,
                        script: encoded.script, budgetAdvice: encoded.budgetAdvice, siblings: siblings.kept,
                        skippedSiblings: siblings.skipped))
            }
            var facts = SourceFacts(header, isTransparent: isTransparent, keeping: settings.keep)
            let smallest = PlaceholderInput.source(
                of: rendered.map { ($0.name, $0.size.width, $0.size.height, $0.bytes) })
            if let smallest { facts.placeholder = try Placeholder(ofVariant: smallest.variant) }
            return RenderedSource(facts: facts, variants: rendered)

        } catch {
            throw RenderFailure(Self.oneLine(error))
        }
    }

    /// What libvips says when it gives no reason.
    static let noDetail = "no detail from libvips"

    /// libvips messages span several lines, often repeating themselves or echoing low-level
    /// buffer errors that follow from the real one; keep the distinct, telling ones.
    static func oneLine(_ error: ImagingError) -> String {
        var lines: [String] = []
        for line in error.reason.split(separator: "\n") {
            var text = String(line.trimmingWhitespace())
            if text.hasSuffix("operation is blocked") {
                text =
                    "no enabled decoder reads this file (libvips offered \(text.prefix { $0 != ":" }), which ladder blocks)"
            }
            if !text.isEmpty && !lines.contains(text) { lines.append(text) }
        }
        let telling = lines.filter { !$0.hasPrefix("source: bad seek") }
        let kept = telling.isEmpty ? lines : telling
        return "\(error.operation): \(kept.isEmpty ? error.reason : kept.joined(separator: "; "))"
    }

}

// MARK: - Limits

extension VariantRenderer {
    /// Refuses, from the bytes alone, what must never reach a decoder: files over the size limit,
    /// anything that is not one of the allowed formats (by content, whatever its name), JPEGs with
    /// too many scans or declared too large (counted by walking their segments).
    static func checkBeforeDecoding(_ bytes: [UInt8], limits: DecodeLimits) throws(RenderFailure) {
        guard bytes.count <= limits.maxFileBytes else {
            throw RenderFailure(
                "the file has \(bytes.count) bytes, over the limit of \(limits.maxFileBytes) (limits.maxFileBytes)")
        }
        let format: ImageFormat
        switch ImageFormat.sniff(bytes) {
        case .format(let found):
            format = found
        case .other(let description):
            throw RenderFailure("not an image ladder reads: the content is \(description)")
        case .unknown:
            throw RenderFailure("not an image ladder reads: the content matches no supported format")
        }
        guard limits.formats.contains(format) else {
            throw RenderFailure(
                "\(format.rawValue.uppercased()) files are not enabled (decoding.formats: \(limits.formats.sorted().map(\.rawValue).joined(separator: ", ")))"
            )
        }
        guard format == .jpeg else { return }
        // A progressive JPEG with thousands of scans costs minutes of CPU inside libjpeg, which
        // cannot be interrupted; count them first.
        do {
            let structure = try JPEGStructure(parsing: bytes, scanLimit: limits.maxScans)
            try checkSize(width: structure.width, height: structure.height, limits: limits)
        } catch let error as RenderFailure {
            throw error
        } catch let error as JPEGStructure.ParseError where error.reason.hasPrefix("more than") {
            throw RenderFailure(
                "more than \(limits.maxScans) scans (limits.maxScans); refused before decoding, as a many-scan file can cost minutes of CPU"
            )
        } catch {
            // Other damage is for the decoder to judge, under the configured strictness.
        }
    }

    /// Refuses images whose header declares more than the limits allow.
    static func checkHeader(_ header: ImageHeader, limits: DecodeLimits) throws(RenderFailure) {
        try checkSize(width: header.storedSize.width, height: header.storedSize.height, limits: limits)
        guard header.bands <= limits.maxBands else {
            throw RenderFailure("\(header.bands) bands, over the limit of \(limits.maxBands) (limits.maxBands)")
        }
    }

    static func checkSize(width: Int, height: Int, limits: DecodeLimits) throws(RenderFailure) {
        if let problem = limits.sizeProblem(width: width, height: height) { throw RenderFailure(problem) }
    }
}
