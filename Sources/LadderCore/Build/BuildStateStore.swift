import Foundation
import LadderImaging
package import LadderManifest

/// The build state in `.ladder/` beside pipeline.json, for one scope: the previous manifest's
/// snapshot, the stat cache and the memory of failed sources. Losing any of it costs only
/// time; none of it can stand in for a manifest or a file that changed.
package struct BuildStateStore {
    let scope: BuildScope
    /// Nil when the state folder cannot be made (the build still runs, from nothing).
    let folder: Directory?
    let observer: (any BuildObserving)?

    package init(scope: BuildScope, observer: (any BuildObserving)?) {
        self.scope = scope
        self.folder = try? Directory.create(StateFolder.path(of: scope.configuration))
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
    package func previousManifest(in manifestFolder: Directory) -> (manifest: Manifest?, snapshotIsCurrent: Bool) {
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
        saveSnapshot(snapshot.serialized())
    }

    /// Writes a snapshot's bytes; nil bytes, or a write that fails, remove it: the build record
    /// vouches for the snapshot it finds, which must never be an older manifest's.
    func saveSnapshot(_ bytes: [UInt8]?) {
        guard let folder else { return }
        do {
            guard let bytes else { return try folder.removeFile(scope.snapshotName) }
            try folder.writeAtomically(bytes, to: scope.snapshotName)
        } catch {
            try? folder.removeFile(scope.snapshotName)
        }
    }

    /// A new snapshot to write a piece at a time, put in place by `saveSnapshot(streamed:)`;
    /// nil when there is no state folder or the file cannot be made.
    func newSnapshotFile() -> Directory.StreamedFile? {
        try? folder?.streamedFile(scope.snapshotName)
    }

    /// Puts in place a snapshot written a piece at a time; nil, or a commit that fails, removes
    /// the snapshot, as `saveSnapshot(_:)` does.
    func saveSnapshot(streamed file: Directory.StreamedFile?) {
        put(file, orRemove: scope.snapshotName)
    }

    /// Commits `file` (written as `name`); nil, or a commit that fails, removes `name`.
    private func put(_ file: Directory.StreamedFile?, orRemove name: String) {
        guard let folder else { return }
        do {
            guard let file else { return try folder.removeFile(name) }
            _ = try file.commit()
        } catch {
            try? folder.removeFile(name)
        }
    }

    /// The snapshot's status (nil: there is none), which the build record keeps.
    func snapshotStatus() -> FileStatus? {
        try? folder?.status(of: scope.snapshotName)
    }

    /// The snapshot, open to be read a piece at a time, when it is still the file whose status
    /// a build record kept (`BuildRecord.identity`), nil otherwise.
    func openSnapshot(ifIdentity identity: String?) -> Directory.OpenFile? {
        guard let identity, let file = try? folder?.openFile(scope.snapshotName),
            BuildRecord.identity(file.status) == identity
        else { return nil }
        return file
    }

    // MARK: - Files about to be written

    static let pendingHeader = "ladder-pending 1"

    /// The variant files (relative to the output folder) that a build of this scope was about
    /// to write when it last stopped without finishing: written by a build that was killed,
    /// they are this scope's own even though no manifest lists them.
    func pendingFiles() -> Set<String> {
        guard let bytes = try? folder?.readFile(scope.pendingFilesName) else { return [] }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)[...]
        guard lines.popFirst() == Self.pendingHeader else { return [] }
        return Set(lines.filter(ContentAddress.isVariantPath))
    }

    /// Records, durably and before any of them is written, the variant files this build will
    /// write, so that a build killed before its manifest names them can still delete them.
    func savePending(_ files: Set<String>) {
        let text = ([Self.pendingHeader] + files.sorted()).joined(separator: "\n") + "\n"
        try? folder?.writeAtomically(Array(text.utf8), to: scope.pendingFilesName)
        try? folder?.synchronize()
    }

    /// Forgets the pending files once the manifest names what was written and the rest is deleted.
    func removePending() {
        try? folder?.removeFile(scope.pendingFilesName)
    }

    // MARK: - Build record

    /// The last build's record, when nothing it depends on changed since (`BuildRecord`): the
    /// sources, the `key`, the manifest file (changed neither since nor in the clock tick the
    /// record was written in), every variant file (`isPresent`, nil when they are known to be
    /// there) and no build of this scope left pending files.
    func unchangedBuild(
        files: [SourceFile], key: String, manifestFolder: Directory, isPresent: ((String, Int) -> Bool)?
    ) -> BuildRecord? {
        guard let folder, let recordStatus = try? folder.status(of: scope.buildRecordName),
            let manifest = try? manifestFolder.status(of: FilePath.name(scope.manifestPath)),
            manifest.modified < recordStatus.modified, manifest.changed < recordStatus.modified,
            pendingFiles().isEmpty,
            let bytes = try? folder.readFile(scope.buildRecordName)
        else { return nil }
        return BuildRecord.matching(bytes, files: files, key: key, manifest: manifest, isPresent: isPresent)
    }

    /// True when every variant file the last build's record lists is there with its recorded
    /// size (`isPresent`, path as the manifest names it); false when one is not, or when there
    /// is no record to read. It needs nothing of this build, so it runs while the sources are
    /// walked, and `unchangedBuild` and `changedSources` then need not look at the files again.
    func recordedVariantsArePresent(isPresent: (String, Int) -> Bool) -> Bool {
        guard let folder, let bytes = try? folder.readFile(scope.buildRecordName) else { return false }
        return BuildRecord.variantsArePresent(bytes, isPresent: isPresent)
    }

    /// What changed since the last build's record, when only sources did and few enough
    /// (`BuildRecord.changes`), under `unchangedBuild`'s other conditions; with the manifest
    /// file's status.
    func changedSources(
        files: [SourceFile], key: String, manifestFolder: Directory, limit: Int, isPresent: ((String, Int) -> Bool)?
    ) -> (changes: BuildRecord.Changes, manifest: FileStatus)? {
        guard let folder, let recordStatus = try? folder.status(of: scope.buildRecordName),
            let manifest = try? manifestFolder.status(of: FilePath.name(scope.manifestPath)),
            manifest.modified < recordStatus.modified, manifest.changed < recordStatus.modified,
            pendingFiles().isEmpty,
            let bytes = try? folder.readFile(scope.buildRecordName),
            let changes = BuildRecord.changes(
                bytes, files: files, key: key, manifest: manifest, limit: limit, isPresent: isPresent)
        else { return nil }
        return (changes, manifest)
    }

    /// A new build record to write a piece at a time, put in place by `saveRecord(streamed:)`;
    /// nil when there is no state folder or the file cannot be made.
    func newRecordFile() -> Directory.StreamedFile? {
        try? folder?.streamedFile(scope.buildRecordName)
    }

    /// Puts in place a record written a piece at a time; nil, or a commit that fails, removes
    /// the record (the next build is then a full one).
    func saveRecord(streamed file: Directory.StreamedFile?) {
        put(file, orRemove: scope.buildRecordName)
    }

    /// Records what this build found and wrote, for `files`; a record that cannot be written
    /// (or a build that wrote none) costs the next build only time.
    func save(_ record: BuildRecord, files: [SourceFile]) {
        guard let bytes = record.serialized(files: files) else { return removeRecord() }
        try? folder?.writeAtomically(bytes, to: scope.buildRecordName)
    }

    /// Forgets the record, so that the next build is a full one.
    func removeRecord() {
        try? folder?.removeFile(scope.buildRecordName)
    }

    // MARK: - Stat cache and failures

    package func statCache() -> StatCache {
        (try? folder?.readFile(StateFolder.statCache)).map { StatCache(serialized: $0) } ?? StatCache()
    }

    func save(_ cache: StatCache) {
        try? folder?.writeAtomically(cache.serialized(), to: StateFolder.statCache)
    }

    /// The failure memory's bytes (empty when there is none), which the build record's key covers.
    func failureMemoryBytes() -> [UInt8] {
        (try? folder?.readFile(scope.failureMemoryName)) ?? []
    }

    func failureMemory() -> FailureMemory {
        (try? folder?.readFile(scope.failureMemoryName)).map { FailureMemory(serialized: $0) } ?? FailureMemory()
    }

    func save(_ memory: FailureMemory) {
        try? folder?.writeAtomically(memory.serialized(), to: scope.failureMemoryName)
    }
}
