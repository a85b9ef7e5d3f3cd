import LadderManifest

/// The Clean phase: deletes exactly the variant files the previous manifest listed (or a killed
/// build of this scope wrote, as its pending list says) and the new one does not (of sources
/// this scope owns), never a file listed by another manifest in the output folder, so that
/// pipelines sharing the folder keep their files. Before a build, it
/// also deletes the temporary files that killed runs of this scope left.
struct CleanPhase {
    let scope: BuildScope
    let folders: OutputFolders
    /// Threads that read the other manifests in the output folder.
    let jobs: Int

    /// Deletes the temporary files killed runs left beside the manifest and in the output folder.
    func removeLeftovers(manifestFolder: Directory) throws {
        let output = folders.output
        for name in try manifestFolder.entries(sorted: false) where scope.ownsTemporaryFile(name, variant: false) {
            try manifestFolder.removeFile(name)
        }
        for folderName in try output.entries(sorted: false) where folderName.utf8.count == 2 {
            guard let folder = try? folders.folder(folderName, create: false) else { continue }
            for name in try folder.entries(sorted: false) where scope.ownsTemporaryFile(name, variant: true) {
                try folder.removeFile(name)
            }
        }
        for name in try output.entries(sorted: false) where scope.ownsTemporaryFile(name, variant: false) {
            try output.removeFile(name)
        }
    }

    /// Deletes what `previous` owned, or what builds of this scope wrote without naming it in a
    /// manifest (`pending`), and `manifest` does not list; returns how many files.
    func removeStale(previous: Manifest?, pending: Set<String>, manifest: Manifest) throws -> Int {
        let prefix = scope.configuration.outputPrefixInManifest
        var owned = pending
        if let previous { owned.formUnion(Self.variantFiles(of: previous, prefix: prefix)) }
        var stale = owned.subtracting(Self.variantFiles(of: manifest, prefix: prefix))
            .filter(scope.owns(variantPath:))
        guard !stale.isEmpty else { return 0 }
        let others = OutputOwnership.filesOfOtherManifests(scope.configuration, ownPartials: false, jobs: jobs)
        stale = stale.filter { !others.contains($0) }
        let output = folders.output
        var removed = 0
        for (folderName, paths) in Dictionary(grouping: stale, by: { ContentAddress.split($0)!.folder }) {
            guard let folder = try? folders.folder(folderName, create: false) else { continue }
            var changed = false
            for path in paths {
                let name = ContentAddress.split(path)!.name
                guard try folder.status(of: name)?.kind == .regular else { continue }
                try folder.removeFile(name)
                removed += 1
                changed = true
            }
            if changed {
                try folder.synchronize()
                if scope.removesEmptyFolders, output.removeFolderIfEmpty(folderName) { try output.synchronize() }
            }
        }
        return removed
    }

    /// The variant files `manifest` lists, relative to the output folder.
    static func variantFiles(of manifest: Manifest, prefix: String) -> Set<String> {
        var files: Set<String> = []
        for entry in manifest.images.values {
            for path in entry.variants.values.flatMap(\.filePaths) {
                if let relative = prefix.isEmpty ? path : FilePath.relative(path, to: prefix) {
                    files.insert(relative)
                }
            }
        }
        return files
    }
}
