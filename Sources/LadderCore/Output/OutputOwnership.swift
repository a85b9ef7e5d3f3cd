import Foundation
import LadderManifest

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
    /// manifest of a million images' catalogue is hundreds of megabytes.
    static func filesOfOtherManifests(
        _ configuration: PipelineConfiguration, ownPartials: Bool
    ) -> PathSet {
        let output = configuration.outputDirectory
        let ownManifest = configuration.manifestPath
        var files = PathSet()
        var folders = [output]
        if FilePath.parent(ownManifest) != output { folders.append(FilePath.parent(ownManifest)) }
        for folderPath in folders {
            guard let folder = try? Directory.open(folderPath), let names = try? folder.entries(sorted: true) else {
                continue
            }
            for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
                let path = FilePath.join(folderPath, name)
                if path == ownManifest { continue }
                if !ownPartials && Shard.isPartialManifestName(name, for: ownManifest) { continue }
                guard (try? folder.status(of: name))??.kind == .regular,
                    let listed = try? filesListed(by: path, folder: folderPath, output: output)
                else { continue }
                files.formUnion(listed)
            }
        }
        return files
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
