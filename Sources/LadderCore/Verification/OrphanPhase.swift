import LadderManifest

/// The orphan phase of `ladder verify`: every file in the output folder must be known, to this
/// manifest (its variants and their format siblings, itself and its index files), to another pipeline's manifest in the
/// folder, or be the folder's lock.
struct OrphanPhase {
    let configuration: PipelineConfiguration
    let outputLabel: String
    /// The output folder relative to the manifest's: worked out once, not once an image.
    private let prefix: String

    init(configuration: PipelineConfiguration, outputLabel: String) {
        self.configuration = configuration
        self.outputLabel = outputLabel
        prefix = configuration.outputPrefixInManifest
    }

    /// The paths of an image's files (its variants and their format siblings) relative to the
    /// output folder: what the phase knows.
    func paths(of entry: Manifest.ImageEntry) -> [String] {
        entry.variants.values.flatMap(\.filePaths).compactMap {
            prefix.isEmpty ? $0 : FilePath.relative($0, to: prefix)
        }
    }

    /// The files of the output folder that are not in `known` (the images' files, as `paths(of:)`
    /// gives them), the manifest of `imageCount` images and its index, or another manifest's.
    func problems(known images: PathSet, imageCount: Int, output: Directory) -> [VerificationProblem] {
        // Other pipelines may share the output folder: what their manifests list is theirs.
        var others = OutputOwnership.filesOfOtherManifests(configuration, ownPartials: true)
        if let manifestInside = FilePath.relative(configuration.manifestPath, to: configuration.outputDirectory) {
            others.insert(manifestInside)
            others.formUnion(ManifestIndexWriter.pathsInOutput(manifestInside, imageCount: imageCount))
        }
        others.insert(OutputOwnership.lockFileName)
        func isKnown(_ path: String) -> Bool { images.contains(path) || others.contains(path) }
        var problems: [VerificationProblem] = []
        func walk(_ directory: Directory, _ relative: String) {
            guard let names = try? directory.entries() else { return }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                guard let status = try? directory.status(of: name) else { continue }
                switch status.kind {
                case .directory:
                    if let child = try? directory.subdirectory(name, create: false) { walk(child, path) }
                case .regular where isKnown(path):
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
