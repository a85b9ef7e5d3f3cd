import LadderManifest

/// The orphan phase of `ladder verify`: every file in the output folder must be known, to this
/// manifest (its variants and their format siblings, itself and its index files), to another pipeline's manifest in the
/// folder, or be the folder's lock.
struct OrphanPhase {
    let configuration: PipelineConfiguration
    let outputLabel: String

    func problems(_ manifest: Manifest, output: Directory) -> [VerificationProblem] {
        let prefix = configuration.outputPrefixInManifest
        var known: Set<String> = []
        for entry in manifest.images.values {
            for path in entry.variants.values.flatMap(\.filePaths) {
                if let relative = prefix.isEmpty ? path : FilePath.relative(path, to: prefix) {
                    known.insert(relative)
                }
            }
        }
        if let manifestInside = FilePath.relative(configuration.manifestPath, to: configuration.outputDirectory) {
            known.insert(manifestInside)
            known.formUnion(ManifestIndexWriter.pathsInOutput(manifestInside, manifest: manifest))
        }
        // Other pipelines may share the output folder: what their manifests list is theirs.
        known.insert(OutputOwnership.lockFileName)
        known.formUnion(OutputOwnership.filesOfOtherManifests(configuration, ownPartials: true))
        var problems: [VerificationProblem] = []
        func walk(_ directory: Directory, _ relative: String) {
            guard let names = try? directory.entries() else { return }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                guard let status = try? directory.status(of: name) else { continue }
                switch status.kind {
                case .directory:
                    if let child = try? directory.subdirectory(name, create: false) { walk(child, path) }
                case .regular where known.contains(path):
                    continue
                default:
                    let what =
                        status.kind == .symbolicLink
                        ? "a symbolic link" : status.kind == .regular ? "a file" : "a special file"
                    problems.append(
                        VerificationProblem(
                            path: outputLabel + "/" + path, kind: .orphan, message: "\(what) the manifest does not know"
                        ))
                }
            }
        }
        walk(output, "")
        return problems
    }
}
