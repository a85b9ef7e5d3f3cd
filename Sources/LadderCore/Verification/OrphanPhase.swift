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
    /// gives it there. The other manifests in the folder are read only when a file is unknown to
    /// this one: a sharded build's kept partial manifests (known by their names) list the same
    /// files as the manifest merged from them, hundreds of megabytes each at a million images.
    func problems(known images: PathSet, imageCount: Int, output: Directory, jobs: Int) -> [VerificationProblem] {
        var own = PathSet()
        let manifestInside = FilePath.relative(configuration.manifestPath, to: configuration.outputDirectory)
        if let manifestInside {
            own.insert(manifestInside)
            own.formUnion(ManifestIndexWriter.pathsInOutput(manifestInside, imageCount: imageCount))
        }
        own.insert(OutputOwnership.lockFileName)
        let partialsFolder = manifestInside.map(FilePath.parent).map { $0 == "." ? "" : $0 }
        let walker = Walker(
            images: images, own: own, partialsFolder: partialsFolder, manifestPath: configuration.manifestPath,
            outputLabel: outputLabel)
        var found = Walker.Found()
        let folders = walker.walk(output, "", into: &found)
        let all = Mutex(found)
        ParallelRunner.run(count: folders.count, width: jobs) { index in
            var found = Walker.Found()
            if let folder = try? output.subdirectory(folders[index].name, create: false) {
                walker.walkAll(folder, folders[index].path, into: &found)
            }
            all.withLock { all in
                all.problems += found.problems
                all.unknownFiles += found.unknownFiles
            }
            return true
        }
        found = all.withLock { $0 }
        guard !found.unknownFiles.isEmpty else { return found.problems }
        // Other pipelines may share the output folder: what their manifests list is theirs.
        let others = OutputOwnership.filesOfOtherManifests(configuration, ownPartials: true, jobs: jobs)
        for path in found.unknownFiles where !others.contains(path) {
            found.problems.append(
                VerificationProblem(
                    path: outputLabel + "/" + path, kind: .orphan, message: "a file the manifest does not know"))
        }
        return found.problems
    }

    /// A walk of the output folder that finds what this manifest does not know.
    private struct Walker: Sendable {
        let images: PathSet
        /// The manifest, its index files and the folder's lock.
        let own: PathSet
        /// The manifest's folder in the output folder ("" for the output folder itself), where
        /// its partial manifests are; nil when it is outside.
        let partialsFolder: String?
        let manifestPath: String
        let outputLabel: String

        /// What a walk found: problems whatever other manifests list (names that are not UTF-8,
        /// links, special files), and the regular files this manifest does not know, by their
        /// paths in the output folder, which another manifest may list.
        struct Found: Sendable {
            var problems: [VerificationProblem] = []
            var unknownFiles: [String] = []
        }

        /// Notes the names in `directory` (at `relative` in the output folder) that are not
        /// known, and returns its folders, to be walked next.
        func walk(
            _ directory: Directory, _ relative: String, into found: inout Found
        ) -> [(name: String, path: String)] {
            guard let listing = try? directory.kindedListing() else { return [] }
            if listing.undecodable > 0 {
                found.problems.append(
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
                case .regular where images.contains(path) || own.contains(path):
                    continue
                case .regular where relative == partialsFolder && Shard.isPartialManifestName(name, for: manifestPath):
                    continue
                case .regular:
                    found.unknownFiles.append(path)
                default:
                    let what = kind == .symbolicLink ? "a symbolic link" : "a special file"
                    found.problems.append(
                        VerificationProblem(
                            path: outputLabel + "/" + path, kind: .orphan, message: "\(what) the manifest does not know"
                        ))
                }
            }
            return folders
        }

        /// Walks `directory` (at `relative`) and every folder below it.
        func walkAll(_ directory: Directory, _ relative: String, into found: inout Found) {
            for folder in walk(directory, relative, into: &found) {
                if let child = try? directory.subdirectory(folder.name, create: false) {
                    walkAll(child, folder.path, into: &found)
                }
            }
        }
    }
}
