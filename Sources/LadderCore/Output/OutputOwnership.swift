import Foundation
import LadderManifest
import Synchronization

/// What in an output folder belongs to whom. Several pipelines may write into one output
/// folder (each with its own manifest): a build deletes only variant files its own previous
/// manifest listed (and its own temporary files), never a file listed by another manifest
/// there, and `verify` counts the files other manifests list as known.
package enum OutputOwnership {
    /// The file in the output folder that builds and merges lock (flock) for the time they
    /// write: a regular file, since NFS honours locks on files but not on folders.
    package static let lockFileName = ".ladder-lock"

    /// The largest member (an image's entry, a top-level field) of another pipeline's manifest
    /// that is read, against a confused folder; the manifest itself is streamed, of any size.
    static let largestMember = 1 << 30

    /// Paths, relative to the output folder, of the variant files that ladder manifests other
    /// than `configuration`'s own list, and of those manifests themselves. Manifests are looked
    /// for directly in the output folder and in the folder of `configuration`'s manifest;
    /// `configuration`'s own manifest and its partial manifests are passed over unless
    /// `ownPartials` is set. Each is streamed (`ManifestStream`), an image at a time: a partial
    /// manifest of a million images' catalogue is hundreds of megabytes. The manifests are read
    /// side by side on `jobs` threads: a sharded build keeps one for each shard.
    static func filesOfOtherManifests(
        _ configuration: PipelineConfiguration, ownPartials: Bool, jobs: Int
    ) -> PathSet {
        let manifests = otherManifests(configuration, ownPartials: ownPartials)
        let output = configuration.outputDirectory
        let listed = Mutex([PathSet?](repeating: nil, count: manifests.count))
        ParallelRunner.run(count: manifests.count, width: jobs) { index in
            let manifest = manifests[index]
            let files = try? filesListed(by: manifest.path, folder: manifest.folder, output: output)
            listed.withLock { $0[index] = files }
            return true
        }
        var files = PathSet()
        for each in listed.withLock({ $0 }) {
            if let each { files.formUnion(each) }
        }
        return files
    }

    /// The regular `.json` files, in the output folder and in the folder of `configuration`'s
    /// manifest, that may be other manifests, each with its folder.
    private static func otherManifests(
        _ configuration: PipelineConfiguration, ownPartials: Bool
    ) -> [(path: String, folder: String)] {
        let ownManifest = configuration.manifestPath
        var manifests: [(path: String, folder: String)] = []
        var folders = [configuration.outputDirectory]
        if FilePath.parent(ownManifest) != folders[0] { folders.append(FilePath.parent(ownManifest)) }
        for folderPath in folders {
            guard let folder = try? Directory.open(folderPath), let names = try? folder.entries(sorted: true) else {
                continue
            }
            for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
                let path = FilePath.join(folderPath, name)
                if path == ownManifest { continue }
                if !ownPartials && Shard.isPartialManifestName(name, for: ownManifest) { continue }
                guard (try? folder.status(of: name))??.kind == .regular else { continue }
                manifests.append((path, folderPath))
            }
        }
        return manifests
    }

    /// The manifest at `path` and what it lists, relative to `output`; throws when it is not a
    /// manifest, which then lists nothing.
    private static func filesListed(
        by path: String, folder: String, output: String
    ) throws(ManifestStream.Failure) -> PathSet {
        var files = PathSet()
        let stream = try ManifestStream(path: path, byteLimit: largestMember)
        let images = try stream.images()
        if let inside = FilePath.relative(path, to: output) {
            files.insert(inside)
            files.formUnion(ManifestIndexWriter.pathsInOutput(inside, imageCount: stream.imageCount))
        }
        while case let batch = try images.next(atLeast: 256), !batch.isEmpty {
            for (_, entry) in batch {
                for variant in entry.variants.values {
                    for file in variant.filePaths {
                        if let inside = FilePath.relative(FilePath.join(folder, file), to: output) {
                            files.insert(inside)
                        }
                    }
                }
            }
        }
        return files
    }
}
