import LadderManifest
import Synchronization

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
        var paths: [String] = []
        paths.reserveCapacity(entry.variants.count)
        for variant in entry.variants.values {
            for path in variant.filePaths {
                if let relative = prefix.isEmpty ? path : FilePath.relative(path, to: prefix) { paths.append(relative) }
            }
        }
        return paths
    }

    /// The files of the output folder that are not in `known` (the images' files, as `paths(of:)`
    /// gives them), the manifest of `imageCount` images and its index, or another manifest's.
    /// The folders at the top (a catalogue's files sit in a few hundred) are walked on `jobs`
    /// threads, and each name's kind is taken from its folder's listing where the file system
    /// gives it there.
    func problems(known images: PathSet, imageCount: Int, output: Directory, jobs: Int) -> [VerificationProblem] {
        // Other pipelines may share the output folder: what their manifests list is theirs.
        var others = OutputOwnership.filesOfOtherManifests(configuration, ownPartials: true)
        if let manifestInside = FilePath.relative(configuration.manifestPath, to: configuration.outputDirectory) {
            others.insert(manifestInside)
            others.formUnion(ManifestIndexWriter.pathsInOutput(manifestInside, imageCount: imageCount))
        }
        others.insert(OutputOwnership.lockFileName)
        let walker = Walker(images: images, others: others, outputLabel: outputLabel)
        var problems: [VerificationProblem] = []
        let folders = walker.walk(output, "", into: &problems)
        let found = Mutex(problems)
        ParallelRunner.run(count: folders.count, width: jobs) { index in
            var problems: [VerificationProblem] = []
            if let folder = try? output.subdirectory(folders[index].name, create: false) {
                walker.walkAll(folder, folders[index].path, into: &problems)
            }
            found.withLock { $0 += problems }
            return true
        }
        return found.withLock { $0 }
    }

    /// A walk of the output folder that reports what no manifest knows.
    private struct Walker: Sendable {
        let images: PathSet
        let others: PathSet
        let outputLabel: String

        /// Reports the names in `directory` (at `relative` in the output folder) that are not
        /// known, and returns its folders, to be walked next.
        func walk(
            _ directory: Directory, _ relative: String, into problems: inout [VerificationProblem]
        ) -> [(name: String, path: String)] {
            guard let listing = try? directory.kindedListing() else { return [] }
            if listing.undecodable > 0 {
                problems.append(
                    VerificationProblem(
                        path: outputLabel + (relative.isEmpty ? "" : "/" + relative), kind: .orphan,
                        message: "\(listing.undecodable) name(s) that are not valid UTF-8, which no manifest can know"))
            }
            var folders: [(name: String, path: String)] = []
            for (name, listed) in listing.entries {
                let path = relative.isEmpty ? name : relative + "/" + name
                guard let kind = listed ?? (try? directory.status(of: name))?.kind else { continue }
                switch kind {
                case .directory:
                    folders.append((name, path))
                case .regular where images.contains(path) || others.contains(path):
                    continue
                default:
                    let what =
                        kind == .symbolicLink ? "a symbolic link" : kind == .regular ? "a file" : "a special file"
                    problems.append(
                        VerificationProblem(
                            path: outputLabel + "/" + path, kind: .orphan, message: "\(what) the manifest does not know"
                        ))
                }
            }
            return folders
        }

        /// Walks `directory` (at `relative`) and every folder below it.
        func walkAll(_ directory: Directory, _ relative: String, into problems: inout [VerificationProblem]) {
            for folder in walk(directory, relative, into: &problems) {
                if let child = try? directory.subdirectory(folder.name, create: false) {
                    walkAll(child, folder.path, into: &problems)
                }
            }
        }
    }
}
