// The defaults live in their own file, so that what a pipeline.json may leave out is in one place.

extension PipelineConfiguration {
    public static let defaultOutput = "build/variants"

    public static func defaultManifest(output: String) -> String {
        FilePath.join(output, "manifest.json")
    }

    /// small_thumb, large_thumb and a 5-scan progressive full-size image whose script is chosen
    /// per image.
    public static let defaultVariants: [VariantRecipe] = [
        VariantRecipe(name: "full", maxWidth: 2560, maxHeight: 2560, quality: 85, progressive: .automatic(scans: 5)),
        VariantRecipe(name: "large_thumb", maxWidth: 640, maxHeight: 640, quality: 82),
        VariantRecipe(name: "small_thumb", maxWidth: 160, maxHeight: 160, quality: 80),
    ]
}
