import LadderManifest

/// Checks that the index files beside the manifest hold exactly what the manifest says
/// (`ManifestIndexWriter`). A shard's partial manifest has no index: `ladder merge` writes it.
struct ManifestIndexCheck {
    var configuration: PipelineConfiguration
    var manifestLabel: String

    func problems(_ manifest: Manifest) -> [VerificationProblem] {
        guard manifest.shard == nil, let folder = try? Directory.open(FilePath.parent(configuration.manifestPath))
        else { return [] }
        let base = FilePath.parent(manifestLabel)
        let writer = ManifestIndexWriter(
            manifestFolder: folder, manifestName: FilePath.name(configuration.manifestPath))
        return writer.problems(for: manifest).map {
            VerificationProblem(path: base == "." ? $0.path : base + "/" + $0.path, kind: .index, message: $0.message)
        }
    }
}
