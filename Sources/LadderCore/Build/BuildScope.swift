import LadderImaging
import LadderManifest

/// What one build covers: the whole pipeline, or one shard of it. The scope alone knows the
/// difference; the phases ask it which sources are theirs, where the manifest and the state
/// go, which locks to hold and what may be deleted.
///
/// A whole build holds the output folder's lock exclusively. A shard holds it shared (shards
/// of one build may write into one folder side by side) plus its own shard lock, writes a
/// partial manifest, owns the sources whose SHA1 falls to it, deletes only files of those,
/// and leaves empty folders to the whole build.
package struct BuildScope: Sendable {
    private let shard: Shard?
    let configuration: PipelineConfiguration

    package init(configuration: PipelineConfiguration, shard: Shard?) {
        self.configuration = configuration
        self.shard = shard
    }

    /// For the build report.
    var reportedShard: Shard? { shard }

    // MARK: - Files

    /// Where this scope's manifest is written.
    package var manifestPath: String {
        shard?.partialManifestPath(for: configuration.manifestPath) ?? configuration.manifestPath
    }

    /// Where to look for the previous manifest when this scope's own is missing: after
    /// `ladder merge` a shard's partial manifest is gone, and the merged one holds its entries
    /// (those of other shards are never looked up).
    var fallbackManifestPath: String? { shard == nil ? nil : configuration.manifestPath }

    /// Names in the state folder (`.ladder/`), each carrying the shard's tag in a shard.
    var snapshotName: String { StateFolder.manifestSnapshot(shard: shard) }
    var fallbackSnapshotName: String { StateFolder.manifestSnapshot(shard: nil) }
    var buildRecordName: String { StateFolder.buildRecord(shard: shard) }
    var failureMemoryName: String { StateFolder.failures(shard: shard) }
    var pendingFilesName: String { StateFolder.pendingFiles(shard: shard) }

    // MARK: - Locks

    /// Takes the locks this scope writes under; they last as long as the returned values.
    func lock(output: Directory, wait: Bool, observer: (any BuildObserving)?) throws -> [FileLock] {
        let folder = configuration.outputDirectory
        var locks = [
            try Builder.acquire(
                waitAllowed: wait, folder: folder,
                announce: { observer?.warning("waiting for another ladder build to finish with '\($0)'") }
            ) { wait in try output.lockFile(OutputOwnership.lockFileName, wait: wait, shared: shard != nil) }
        ]
        if let shard {
            let state = try Directory.create(StateFolder.path(of: configuration))
            locks.append(
                try Builder.acquire(
                    waitAllowed: wait, folder: folder,
                    announce: { _ in observer?.warning("waiting for another ladder build of shard \(shard) to finish") }
                ) { wait in try state.lockFile(StateFolder.lock(shard: shard), wait: wait) })
        }
        return locks
    }

    // MARK: - Ownership

    /// True when the source with this SHA1 is built by this scope.
    func owns(sha1: String) -> Bool { shard?.owns(sha1: sha1) ?? true }

    /// True when the unreadable source at `path` (no SHA1 of its content) is reported by this scope.
    func owns(unreadablePath path: String) -> Bool { shard?.owns(unreadablePath: path) ?? true }

    /// True when this scope may delete the variant file at `relative` (to the output folder).
    func owns(variantPath relative: String) -> Bool {
        ContentAddress.isVariantPath(relative) && owns(sha1: String(FilePath.name(relative).prefix(40)))
    }

    /// True when the temporary file `name` (of a killed run) is this scope's to delete: every
    /// one in a whole build; in a shard, those of its variants and of its partial manifest.
    func ownsTemporaryFile(_ name: String, variant: Bool) -> Bool {
        guard let finalName = Self.finalName(ofTemporary: name) else { return false }
        guard let shard else { return true }
        return variant ? shard.owns(sha1: String(finalName.prefix(40))) : finalName == FilePath.name(manifestPath)
    }

    /// True when the temporary file `name` in the state folder is this scope's to delete.
    func ownsTemporaryStateFile(_ name: String) -> Bool {
        guard let finalName = Self.finalName(ofTemporary: name) else { return false }
        return shard.map { finalName.contains($0.tag) } ?? true
    }

    /// Whether emptied variant folders are removed (never by a shard: another one may be
    /// writing into them).
    var removesEmptyFolders: Bool { shard == nil }

    /// Whether the build writes the per-prefix index files beside its manifest: a whole build
    /// does; a shard's partial manifest gets them from `ladder merge`.
    var writesIndex: Bool { shard == nil }

    /// The name a temporary file was to be renamed to (`.ladder-tmp-<pid>-<random>-<name>`), or
    /// nil when `name` is not one of ladder's temporary files.
    static func finalName(ofTemporary name: String) -> String? {
        guard name.hasPrefix(Directory.temporaryPrefix) else { return nil }
        return name.dropFirst(Directory.temporaryPrefix.count).split(
            separator: "-", maxSplits: 2, omittingEmptySubsequences: false
        ).last.map(String.init)
    }

    // MARK: - Manifest

    /// What a partial manifest says about the build it is a share of; nil for a whole build.
    /// `sortedPaths` are every source's path, as every shard's walk lists them.
    func manifestShard(sortedPaths: [String], fingerprints: [String: String]) -> Manifest.Shard? {
        shard.map {
            Manifest.Shard(
                index: $0.index, count: $0.count, sources: sortedPaths.count,
                sourcesSHA1: Builder.sourceListSHA1(sortedPaths), recipes: fingerprints)
        }
    }
}
