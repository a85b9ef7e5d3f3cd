import LadderImaging
import LadderManifest

/// Holds an image's recorded facts to its source file itself, so that a manifest edited to
/// match a tampered variant is still caught:
/// - every variant file has the size its recipe gives for the source's upright size, as the
///   source's header says it (`recipe-size`), and the image entry records that size
///   (`dimensions`);
/// - `hasAlpha` is true only for a source with an alpha channel; with `deep`, a source with
///   one is decoded as the build decodes it (to the largest variant's size) and `hasAlpha`
///   must say whether any pixel is less than opaque (`has-alpha`).
struct SourceFactsCheck {
    let configuration: PipelineConfiguration
    let manifestLabel: String
    var deep = false

    /// What the image phase found of one image that this check needs.
    struct Image: Sendable {
        /// Each variant file's size as its frame header says it, by variant name (files read).
        var frames: [String: PixelSize] = [:]
        /// Each variant file's label, by variant name.
        var labels: [String: String] = [:]
        /// Variants made with another recipe than the current one (reported as stale).
        var stale: Set<String> = []
    }

    func problems(
        _ key: String, _ entry: Manifest.ImageEntry, image: Image, source: SourceFile, header read: SourceHeader.Read
    ) -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        func problem(_ kind: ProblemKind, _ path: String, _ message: String) {
            problems.append(VerificationProblem(path: path, kind: kind, message: message, image: key))
        }
        var bytes: [UInt8]?
        var header: SourceHeader
        switch read {
        case .header(let found):
            header = found
        case .needsWholeFile:
            // The file is read again, and used only while it has the bytes the image was built of.
            guard
                let whole = try? Directory.readFile(
                    atPath: source.absolutePath, limit: configuration.limits.maxFileBytes),
                Checksum.hex(.sha1, of: whole) == key
            else { return [] }
            bytes = whole
            guard case .header(let found) = SourceHeader.read(whole: whole, formats: configuration.limits.formats)
            else {
                problem(.undecodable, source.path, "libvips cannot read this source's header, which the build read")
                return problems
            }
            header = found
        case .none(let reason):
            problem(
                .stale, source.path,
                "the build decoded this source, the pipeline would not now: \(reason); run ladder build")
            return problems
        }

        if entry.width != header.upright.width || entry.height != header.upright.height {
            problem(
                .dimensions, manifestLabel,
                "image \(source.path) is \(entry.width)x\(entry.height) in the manifest, \(header.upright.width)x\(header.upright.height) by its source's header"
            )
        }
        for recipe in configuration.variants {
            guard let frame = image.frames[recipe.name], !image.stale.contains(recipe.name) else { continue }
            let expected = recipe.size(for: header.upright)
            guard frame != expected else { continue }
            problem(
                .recipeSize, image.labels[recipe.name] ?? recipe.name,
                "\(frame.width)x\(frame.height), but the \(recipe.name) recipe (\(recipe.maxWidth)x\(recipe.maxHeight) box) makes \(expected.width)x\(expected.height) of the \(header.upright.width)x\(header.upright.height) source \(source.path)"
            )
        }

        if entry.hasAlpha == true && !header.hasAlpha {
            problem(
                .hasAlpha, manifestLabel, "image \(source.path): hasAlpha is true, but its source has no alpha channel")
        }
        guard deep, header.hasAlpha,
            configuration.limits.sizeProblem(
                width: header.storedSize.width, height: header.storedSize.height) == nil
        else { return problems }
        do {
            let whole =
                try bytes ?? Directory.readFile(atPath: source.absolutePath, limit: configuration.limits.maxFileBytes)
            guard Checksum.hex(.sha1, of: whole) == key else { return problems }
            let full = try ImageHeader(reading: whole, metadata: false)
            // The decode shrinks as the build's does: see `Imaging.reducingAlone`.
            let transparent = try Imaging.reducingAlone { () throws(ImagingError) -> Bool in
                try LadderImaging.Image.decode(
                    whole, header: full, to: VariantRecipe.decodeSize(for: configuration.variants, source: full.size),
                    background: configuration.background, strictness: configuration.limits.failOn
                ).isTransparent
            }
            if transparent != (entry.hasAlpha ?? false) {
                problem(
                    .hasAlpha, manifestLabel,
                    "image \(source.path): hasAlpha is \(entry.hasAlpha ?? false), but decoded as the build decodes it, \(transparent ? "some pixels of the source are transparent" : "every pixel of the source is opaque")"
                )
            }
        } catch {
            problem(.undecodable, source.path, "decoded again to check hasAlpha, as the build decoded it: \(error)")
        }
        return problems
    }
}
