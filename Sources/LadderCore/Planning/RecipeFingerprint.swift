package import LadderImaging
package import LadderManifest

/// Identifies everything that decides a variant file's bytes besides the source: the recipe,
/// the settings shared by all variants, and the encoder. A manifest entry whose fingerprint
/// differs from the current one is made again; one that matches is kept.
package enum RecipeFingerprint {
    /// A SHA1 over a canonical description of the recipe, as `renderer` makes it (this ladder's
    /// renderer unless the fingerprint of an earlier one is wanted).
    package static func compute(
        _ recipe: VariantRecipe, background: RGBColor, keep: Set<ExifField>, versions: Imaging.Versions,
        renderer: RendererIdentity = .current
    ) -> String {
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
            }
        } else {
            lines.append("baseline")
        }
        // Format siblings: what encodes them and how. A variant without them keeps the
        // fingerprint it had before ladder made siblings.
        if !recipe.formats.isEmpty {
            lines.append("siblings \(Imaging.siblingEncoders)")
            lines += recipe.formats.map { recipe.siblingEncoding($0).fingerprintLine }
        }
        return Checksum.hex(.sha1, of: Array(lines.joined(separator: "\n").utf8))
    }
}

/// What decides how a renderer turns a recipe into bytes, besides the libraries' versions: a
/// revision bumped whenever ladder changes how it renders (so that old variants are made
/// again), and the resampling.
package struct RendererIdentity: Sendable, Equatable {
    package var revision: Int
    package var resampling: Image.Resampling

    package init(revision: Int, resampling: Image.Resampling) {
        self.revision = revision
        self.resampling = resampling
    }

    /// This ladder's renderer.
    package static let current = RendererIdentity(revision: 4, resampling: VariantRenderer.resampling)
}
