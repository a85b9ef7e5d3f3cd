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

    /// The largest manifest of another pipeline that is read, against a confused folder.
    static let largestManifest = 1 << 30

    /// Paths, relative to the output folder, of the variant files that ladder manifests other
    /// than `configuration`'s own list, and of those manifests themselves. Manifests are looked
    /// for directly in the output folder and in the folder of `configuration`'s manifest;
    /// `configuration`'s own manifest and its partial manifests are passed over unless
    /// `ownPartials` is set.
    package static func filesOfOtherManifests(
        _ configuration: PipelineConfiguration, ownPartials: Bool
    ) -> Set<String> {
        let output = configuration.outputDirectory
        let ownManifest = configuration.manifestPath
        var files: Set<String> = []
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
                    let bytes = try? folder.readFile(name, limit: largestManifest),
                    let manifest = try? Manifest(jsonData: Data(bytes))
                else { continue }
                if let inside = FilePath.relative(path, to: output) {
                    files.insert(inside)
                    files.formUnion(ManifestIndexWriter.pathsInOutput(inside, imageCount: manifest.images.count))
                }
                for entry in manifest.images.values {
                    for variant in entry.variants.values {
                        for path in variant.filePaths {
                            if let inside = FilePath.relative(FilePath.join(folderPath, path), to: output) {
                                files.insert(inside)
                            }
                        }
                    }
                }
            }
        }
        return files
    }
}
