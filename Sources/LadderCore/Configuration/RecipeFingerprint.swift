package import LadderImaging
package import LadderManifest

/// Identifies everything that decides a variant file's bytes besides the source: the recipe,
/// the settings shared by all variants, and the encoder. A manifest entry whose fingerprint
/// differs from the current one is made again; one that matches is kept. The manifest records
/// each fingerprint's description (`recipes`), so that `ladder verify` can say what changed.
package enum RecipeFingerprint {
    /// A SHA1 over a canonical description of the recipe (`description`), as `renderer` makes
    /// it (this ladder's renderer unless the fingerprint of an earlier one is wanted).
    package static func compute(
        _ recipe: VariantRecipe, background: RGBColor, keep: Set<ExifField>, versions: Imaging.Versions,
        renderer: RendererIdentity = .current
    ) -> String {
        of(description(recipe, background: background, keep: keep, versions: versions, renderer: renderer))
    }

    /// The fingerprint of a description: the SHA1 of its lines joined by line feeds.
    package static func of(_ description: [String]) -> String {
        Checksum.hex(.sha1, of: Array(description.joined(separator: "\n").utf8))
    }

    /// The canonical description a fingerprint is taken over: one "name value" line for each
    /// thing that decides the variant's bytes.
    package static func description(
        _ recipe: VariantRecipe, background: RGBColor, keep: Set<ExifField>, versions: Imaging.Versions,
        renderer: RendererIdentity = .current
    ) -> [String] {
        var lines = [
            "ladder-variant \(renderer.revision)",
            "resampling \(renderer.resampling)",
            "box \(recipe.maxWidth)x\(recipe.maxHeight)",
            "quality \(recipe.quality)",
            "chroma \(recipe.chroma.rawValue)",
            "background \(background)",
            "keep \(keep.map(\.rawValue).sorted().joined(separator: ","))",
            "libvips \(versions.libvips)",
            "libjpeg \(versions.libjpeg)",
            "libexif \(versions.libexif)",
        ]
        if let progressive = recipe.progressive {
            lines.append("color \(progressive.color)")
            lines.append("grayscale \(progressive.grayscale)")
            if let automatic = progressive.automatic {
                lines.append(
                    "script auto \(ScanScriptCandidates.revision), first picture within \(automatic.firstPictureBudget)"
                )
                lines.append(
                    "seen in a view \(automatic.displayWidth) wide after \(automatic.firstRung ?? "nothing")")
            }
        } else {
            lines.append("baseline")
        }
        // Format siblings: what encodes them and how. A variant without them keeps the
        // description it had before ladder made siblings.
        if !recipe.formats.isEmpty {
            lines.append("siblings \(Imaging.siblingEncoders)")
            lines += recipe.formats.map { recipe.siblingEncoding($0).fingerprintLine }
        }
        return lines
    }
}

/// What decides how a renderer turns a recipe into bytes, besides the libraries' versions: a
/// revision bumped whenever ladder changes how it renders (so that old variants are made
/// again), and the resampling. Revision 5 takes the placeholder and averageColor from the
/// smallest variant's file as decoded, so that verify can recompute them.
package struct RendererIdentity: Sendable, Equatable {
    package var revision: Int
    package var resampling: Image.Resampling

    package init(revision: Int, resampling: Image.Resampling) {
        self.revision = revision
        self.resampling = resampling
    }

    /// This ladder's renderer, which resizes with Lanczos3 (`VariantRenderer.resampling`).
    package static let current = RendererIdentity(revision: 5, resampling: .lanczos3)
}
