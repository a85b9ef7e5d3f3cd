import Foundation
import LadderImaging
import LadderManifest

/// The build state in `.ladder/` beside pipeline.json, for one scope: the previous manifest's
/// snapshot, the stat cache and the memory of failed sources. Losing any of it costs only
/// time; none of it can stand in for a manifest or a file that changed.
struct BuildStateStore {
    let scope: BuildScope
    /// Nil when the state folder cannot be made (the build still runs, from nothing).
    let folder: Directory?
    let observer: (any BuildObserving)?

    init(scope: BuildScope, observer: (any BuildObserving)?) {
        self.scope = scope
        self.folder = try? Directory.create(scope.configuration.resolve(Builder.stateFolder))
        self.observer = observer
    }

    /// Deletes the temporary files that killed runs of this scope left.
    func removeLeftovers() throws {
        guard let folder else { return }
        for name in try folder.entries(sorted: false) where scope.ownsTemporaryStateFile(name) {
            try folder.removeFile(name)
        }
    }

    // MARK: - Previous manifest

    /// The manifest the last build of this scope left (for a shard whose own is gone, the
    /// merged one); `snapshotIsCurrent` is false when the snapshot must be written again.
    func previousManifest(in manifestFolder: Directory) -> (manifest: Manifest?, snapshotIsCurrent: Bool) {
        let loaded = load(scope.manifestPath, folder: manifestFolder, snapshotName: scope.snapshotName)
        if loaded.manifest == nil, let fallback = scope.fallbackManifestPath {
            return (load(fallback, folder: manifestFolder, snapshotName: scope.fallbackSnapshotName).manifest, false)
        }
        return loaded
    }

    /// From its snapshot when the manifest file still has the bytes the snapshot was made
    /// from, else from its JSON.
    private func load(
        _ path: String, folder manifestFolder: Directory, snapshotName: String
    ) -> (manifest: Manifest?, snapshotIsCurrent: Bool) {
        guard let bytes = try? manifestFolder.readFile(FilePath.name(path)) else { return (nil, false) }
        if let folder, let snapshotBytes = try? folder.readFile(snapshotName),
            let snapshot = ManifestSnapshot(serialized: snapshotBytes),
            snapshot.manifestSHA1 == Checksum.hex(.sha1, of: bytes),
            snapshot.manifest.contentProblems().isEmpty
        {
            return (snapshot.manifest, true)
        }
        do {
            return (try Manifest(jsonData: Data(bytes)), false)
        } catch {
            observer?.warning(
                "the previous manifest '\(path)' cannot be used (\(error)); every source will be built again")
            return (nil, false)
        }
    }

    /// Keeps `manifest`, written as `manifestData`, for the next build to read fast.
    func saveSnapshot(of manifest: Manifest, data manifestData: [UInt8]) {
        let snapshot = ManifestSnapshot(manifestSHA1: Checksum.hex(.sha1, of: manifestData), manifest: manifest)
        try? folder?.writeAtomically(snapshot.serialized(), to: scope.snapshotName)
    }

    // MARK: - Stat cache and failures

    func statCache() -> StatCache {
        (try? folder?.readFile(BuildScope.statCacheName)).map { StatCache(serialized: $0) } ?? StatCache()
    }

    func save(_ cache: StatCache) {
        try? folder?.writeAtomically(cache.serialized(), to: BuildScope.statCacheName)
    }

    func failureMemory() -> FailureMemory {
        (try? folder?.readFile(scope.failureMemoryName)).map { FailureMemory(serialized: $0) } ?? FailureMemory()
    }

    func save(_ memory: FailureMemory) {
        try? folder?.writeAtomically(memory.serialized(), to: scope.failureMemoryName)
    }
}
