import Foundation
import LadderManifest

/// The Commit phase: makes the renames of the Render phase durable, assembles the manifest from
/// the work list and what was rendered, and writes it last, atomically, when its bytes
/// changed. From then on the manifest names the new files.
struct CommitPhase {
    let scope: BuildScope
    let store: BuildStateStore
    let folders: OutputFolders
    let generator: Manifest.Generator

    /// The manifest that describes `work` as rendered in `rendered`, for `files`; `recipes` are
    /// the current recipes' descriptions by fingerprint.
    func manifest(
        for work: WorkList, rendered: RenderPhase.Result, files: [SourceFile], fingerprints: [String: String],
        recipes: [String: [String]]
    ) -> Manifest {
        var entries: [String: Manifest.ImageEntry] = [:]
        var failuresBySHA1 = rendered.failures
        for item in work.items {
            switch item.action {
            case .upToDate(let entry): entries[item.sha1] = entry
            case .render: if let entry = rendered.entries[item.sha1] { entries[item.sha1] = entry }
            case .knownFailure(let reason): failuresBySHA1[item.sha1] = reason
            }
        }
        var images: [String: Manifest.ImageEntry] = [:]
        var failures: [String: String] = [:]
        var failureSHA1: [String: String] = [:]
        for (file, role) in zip(files, work.roles) {
            switch role {
            case .unreadable(let reason):
                failures[file.path] = reason
            case .image(let sha1):
                if let reason = failuresBySHA1[sha1] {
                    failures[file.path] = reason
                    failureSHA1[file.path] = sha1
                } else if var entry = images[sha1] ?? entries[sha1] {
                    entry.sources.append(file.path)
                    images[sha1] = entry
                }
            case .inOtherShard:
                continue
            }
        }
        for (sha1, entry) in images { images[sha1]?.sources = entry.sources.sorted() }
        // What each fingerprint the variants carry stands for (all current: the Plan makes again
        // every variant with another).
        let used = Set(images.values.flatMap { $0.variants.values.map(\.recipe) })
        let described = recipes.filter { used.contains($0.key) }
        var manifest = Manifest(
            generator: generator, images: images, failures: failures,
            failureSHA1: failureSHA1.isEmpty ? nil : failureSHA1, recipes: described.isEmpty ? nil : described)
        // The walk lists the files sorted by path, as every shard does.
        manifest.shard = scope.manifestShard(sortedPaths: files.map(\.path), fingerprints: fingerprints)
        return manifest
    }

    /// Flushes the folders the Render phase wrote into, then writes the index files (whole builds
    /// only) and `manifest` when it differs from the file on disk (and its snapshot when that is
    /// not current). Returns whether the
    /// manifest file was written.
    func write(
        _ manifest: Manifest, previous: Manifest?, snapshotIsCurrent: Bool, touchedFolders: Set<String>,
        manifestFolder: Directory
    ) throws -> Bool {
        // Every new file is written; make the renames durable before the manifest names them.
        for folder in touchedFolders.sorted() {
            try folders.folder(folder, create: false).synchronize()
        }
        try folders.output.synchronize()
        let changed = manifest != previous || !snapshotIsCurrent
        // The index files first, then the manifest: both name only files that exist. A no-op
        // build rewrites them only when some are missing. When the previous manifest is the one
        // a build wrote with them (its snapshot is current), only the prefix files of the images
        // that changed are made again.
        let index = ManifestIndexWriter(manifestFolder: manifestFolder, manifestName: FilePath.name(scope.manifestPath))
        if scope.writesIndex, changed || !index.isComplete {
            try index.write(manifest, previous: snapshotIsCurrent ? previous : nil)
        }
        // Deterministic encoding: a manifest equal to the previous one has its bytes already.
        guard changed else { return false }
        let manifestData = [UInt8](manifest.jsonData())
        let manifestName = FilePath.name(scope.manifestPath)
        var written = false
        if (try? manifestFolder.readFile(manifestName)) != manifestData {
            try manifestFolder.writeAtomically(manifestData, to: manifestName)
            try manifestFolder.synchronize()
            written = true
        }
        store.saveSnapshot(of: manifest, data: manifestData)
        return written
    }
}
