public import LadderImaging

/// Identifies everything that decides a variant file's bytes besides the source: the recipe,
/// the settings shared by all variants, and the encoder. A manifest entry whose fingerprint
/// differs from the current one is made again; one that matches is kept.
public enum RecipeFingerprint {
    /// Bumped whenever ladder changes how it renders, so that old variants are made again.
    public static let rendererRevision = 4

    /// A SHA1 over a canonical description of the recipe.
    ///
    /// `resampling` is the renderer's (`VariantRenderer.resampling`) and `revision` the current
    /// `rendererRevision`, unless a test asks for what an earlier ladder recorded.
    public static func compute(
        _ recipe: VariantRecipe, background: RGBColor, keep: Set<ExifField>, versions: Imaging.Versions,
        resampling: Image.Resampling = VariantRenderer.resampling, revision: Int = rendererRevision
    ) -> String {
        var lines = [
            "ladder-variant \(revision)",
            "resampling \(resampling)",
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
        return Checksum.hex(.sha1, of: Array(lines.joined(separator: "\n").utf8))
    }
}
