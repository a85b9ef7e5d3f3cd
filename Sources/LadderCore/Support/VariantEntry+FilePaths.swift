package import LadderManifest

extension Manifest.VariantEntry {
    /// The paths of the variant's files: its JPEG rung, then its format siblings by format.
    package var filePaths: [String] {
        [path] + (formats ?? [:]).sorted { $0.key < $1.key }.map(\.value.path)
    }
}
