import Foundation
package import LadderImaging
import LadderManifest
import Synchronization

/// Runs a pipeline, in phases (see docs/ARCHITECTURE.md):
///
///     walk → hash → Plan → Render → Commit → Clean
///
/// The walk finds the sources; hashing gives each its SHA1 (from the stat cache when the file
/// is unchanged); the Plan decides from the previous manifest alone what is out of date; the
/// Render phase makes only that; the Commit phase writes the manifest last; the Clean phase
/// deletes what the previous manifest owned and the new one does not. A `BuildScope` (the
/// whole build or one shard) answers every question that depends on sharding.
///
/// Crash safety: variant files are written under temporary names, flushed and renamed; the
/// manifest is replaced the same way only after every file it names is on disk, and stale files
/// are deleted only after that. At any moment the manifest on disk describes complete files.
package final class Builder: Sendable {
    package struct Options: Sendable {
        /// Sources processed at once.
        package var jobs: Int
        /// Wait for another build holding the output folder (else fail at once).
        package var waitForLock: Bool
        /// Build only this share of the sources, into a partial manifest.
        package var shard: Shard?

        package init(jobs: Int = Defaults.jobs, waitForLock: Bool = true, shard: Shard? = nil) {
            self.jobs = jobs
            self.waitForLock = waitForLock
            self.shard = shard
        }
    }

    package let configuration: PipelineConfiguration
    package let options: Options
    /// The render workers: the only way a build renders.
    let workers: WorkerPool
    let observer: (any BuildObserving)?
    let versions: Imaging.Versions
    let ladderVersion: String

    package init(
        configuration: PipelineConfiguration, options: Options = Options(),
        workers: WorkerPool, observer: (any BuildObserving)? = nil,
        versions: Imaging.Versions = Imaging.versions, ladderVersion: String = LadderVersion.current
    ) {
        self.configuration = configuration
        self.options = options
        self.workers = workers
        self.observer = observer
        self.versions = versions
        self.ladderVersion = ladderVersion
    }

    // MARK: - Run

    package func run() throws(BuildError) -> BuildReport {
        let started = Date()
        // The build's threads only hash, wait for workers and write files: with one malloc arena
        // what one thread frees is reused by the next instead of being kept per thread.
        Allocator.limitArenas(to: 1)
        return try BuildError.mapping(operation: "build", path: configuration.outputDirectory) {
            try runLocked(started: started)
        }
    }

    private func runLocked(started: Date) throws -> BuildReport {
        let scope = BuildScope(configuration: configuration, shard: options.shard)
        let output = try Directory.create(configuration.outputDirectory)
        let locks = try scope.lock(output: output, wait: options.waitForLock, observer: observer)
        defer { withExtendedLifetime(locks) {} }
        let store = BuildStateStore(scope: scope, observer: observer)
        try store.removeLeftovers()
        let manifestFolder = try Directory.create(FilePath.parent(scope.manifestPath))
        let folders = OutputFolders(output)
        let clean = CleanPhase(scope: scope, folders: folders, jobs: options.jobs)
        try clean.removeLeftovers(manifestFolder: manifestFolder)

        // Walk, while another thread checks that the variant files the last build recorded
        // are still there: a no-op build's two file-system costs, side by side.
        let scanStarted = Self.now()
        let prefix = configuration.outputPrefixInManifest
        let (walk, variantsArePresent) = try walkWhileChecking(store, prefix: prefix, folders: folders)
        for warning in walk.warnings { observer?.warning("\(warning.path): \(warning.message)") }
        let files = walk.files
        observer?.buildStarted(total: files.count)

        // Each recipe's description, and its fingerprint (the SHA1 of the description).
        let descriptions = Dictionary(
            uniqueKeysWithValues: configuration.variants.map {
                (
                    $0.name,
                    RecipeFingerprint.description(
                        $0, background: configuration.background, keep: configuration.metadata.keep, versions: versions)
                )
            })
        let fingerprints = descriptions.mapValues(RecipeFingerprint.of)
        let attempt = FailureMemory.attempt(
            fingerprints: fingerprints, limits: configuration.limits, ladderVersion: ladderVersion)
        let generator = Manifest.Generator(
            ladder: ladderVersion, libvips: versions.libvips, libjpeg: versions.libjpeg, libexif: versions.libexif)

        // Nothing changed since the last build: it wrote what this one would write.
        let recordKey = Self.recordKey(
            scope: scope, descriptions: descriptions, attempt: attempt, generator: generator,
            failureMemory: store.failureMemoryBytes())
        if let unchanged = store.unchangedBuild(
            files: files, key: recordKey, manifestFolder: manifestFolder,
            isPresent: variantsArePresent
                ? nil : { Self.isPresent($0, bytes: $1, prefix: prefix, folders: folders) }),
            !scope.writesIndex
                || ManifestIndexWriter(
                    manifestFolder: manifestFolder, manifestName: FilePath.name(scope.manifestPath)
                ).isComplete
        {
            return report(unchanged: unchanged, files: files, walkWarnings: walk.warnings, started: started)
        }

        // A few sources changed: only they are hashed, planned and written.
        let inputs = BuildInputs(
            scope: scope, store: store, manifestFolder: manifestFolder, folders: folders, clean: clean,
            descriptions: descriptions, fingerprints: fingerprints, attempt: attempt, generator: generator,
            recordKey: recordKey, scanStarted: scanStarted, recordedVariantsArePresent: variantsArePresent)
        if let report = try runChanges(files: files, walkWarnings: walk.warnings, inputs: inputs, started: started) {
            return report
        }

        // Hash.
        let (previous, snapshotIsCurrent) = store.previousManifest(in: manifestFolder)
        let oldCache = store.statCache()
        // A source the stat cache does not vouch for is likely to be rendered: start the workers
        // now, so that their start-up overlaps with hashing. A no-op build starts none.
        if files.contains(where: { oldCache.sha1(for: $0) == nil }) { workers.prepare() }
        let hashes = SourceHashing(
            files, cache: oldCache, limit: configuration.limits.maxFileBytes, width: options.jobs * 2)

        // Plan.
        let oldFailures = store.failureMemory()
        let work = Planner.plan(
            sources: hashes.sources, previous: previous, fingerprints: fingerprints, owns: scope.owns(sha1:),
            ownsUnreadable: scope.owns(unreadablePath:),
            knownFailure: { oldFailures.reason(for: $0, attempt: attempt) },
            fileIsPresent: { Self.isPresent($0, prefix: prefix, folders: folders) })
        reportPlanned(work, files: files)
        // Files that a killed build of this scope wrote are its own; so are those about to be.
        let leftovers = store.pendingFiles()
        let planned = RenderPhase.plannedFiles(
            work, fingerprints: fingerprints,
            formats: Dictionary(uniqueKeysWithValues: configuration.variants.map { ($0.name, $0.formats) }))
        if !planned.isEmpty { store.savePending(leftovers.union(planned)) }

        // Render.
        let render = RenderPhase(
            configuration: configuration, workers: workers, observer: observer, folders: folders,
            fingerprints: fingerprints, attempt: attempt, jobs: options.jobs)
        let observer = self.observer
        let rendered = try render.run(work, files: files) { observer?.sourceFinished(files[$0].path, outcome: $1) }

        // Commit.
        let commit = CommitPhase(
            scope: scope, store: store, folders: folders,
            generator: generator)
        let manifest = commit.manifest(
            for: work, rendered: rendered, files: files, fingerprints: fingerprints,
            recipes: Dictionary(descriptions.values.map { (RecipeFingerprint.of($0), $0) }) { first, _ in first })
        let mismatches = Self.extensionMismatches(in: manifest)
        for warning in mismatches { observer?.warning("\(warning.path): \(warning.message)") }
        let manifestWritten = try commit.write(
            manifest, previous: previous, snapshotIsCurrent: snapshotIsCurrent,
            touchedFolders: rendered.touchedFolders, manifestFolder: manifestFolder)

        // Clean, then keep what saves time next run.
        let removed = try clean.removeStale(
            previous: previous, pending: leftovers.union(planned), manifest: manifest)
        if !leftovers.isEmpty || !planned.isEmpty { store.removePending() }
        var cache = StatCache(scannedAt: scanStarted)
        for (file, hashed) in zip(files, hashes.sources) {
            if case .sha1(let sha1) = hashed.content { cache.record(file, sha1: sha1) }
        }
        if cache.entries != oldCache.entries || hashes.distrustedCacheEntries { store.save(cache) }
        var failureMemory = rendered.failureMemory
        for item in work.items {
            if case .knownFailure(let reason) = item.action {
                failureMemory.bySHA1[item.sha1] = FailureMemory.Failure(attempt: attempt, reason: reason)
            }
        }
        if failureMemory != oldFailures { store.save(failureMemory) }
        saveRecord(
            store: store, work: work, files: files, manifest: manifest, manifestFolder: manifestFolder,
            scannedAt: scanStarted, mismatches: mismatches,
            key: Self.recordKey(
                scope: scope, descriptions: descriptions, attempt: attempt, generator: generator,
                failureMemory: store.failureMemoryBytes()))

        return BuildReport(
            sources: files.count, built: rendered.entries.count,
            skipped: work.upToDateCount, shard: scope.reportedShard, inOtherShards: work.inOtherShardsCount,
            failed: manifest.failures.sorted { $0.key < $1.key }.map {
                BuildReport.Failure(source: $0.key, reason: $0.value)
            },
            warnings: (walk.warnings + mismatches).sorted { $0.path < $1.path }, hashed: hashes.hashed,
            filesWritten: rendered.filesWritten, siblingsWritten: rendered.siblingsWritten,
            siblingsSkipped: rendered.siblingsSkipped, filesRemoved: removed,
            manifestWritten: manifestWritten, manifestPath: scope.manifestPath,
            outputDirectory: configuration.outputDirectory, seconds: Date().timeIntervalSince(started))
    }

    /// Tells the observer about every source the Plan settled without rendering.
    func reportPlanned(_ work: WorkList, files: [SourceFile]) {
        guard let observer else { return }
        var firstSource: [String: Int] = [:]
        for item in work.items {
            firstSource[item.sha1] = item.source
            switch item.action {
            case .upToDate: observer.sourceFinished(files[item.source].path, outcome: .upToDate)
            case .knownFailure(let reason): observer.sourceFinished(files[item.source].path, outcome: .failed(reason))
            case .render: continue
            }
        }
        for (index, role) in work.roles.enumerated() {
            switch role {
            case .image(let sha1) where firstSource[sha1] != index:
                // Another path with the same bytes does the work.
                observer.sourceFinished(files[index].path, outcome: .upToDate)
            case .image: continue
            case .inOtherShard: observer.sourceFinished(files[index].path, outcome: .inOtherShard)
            case .unreadable(let reason): observer.sourceFinished(files[index].path, outcome: .failed(reason))
            }
        }
    }

    /// The sources' walk, and on another thread `BuildStateStore.recordedVariantsArePresent`.
    private func walkWhileChecking(
        _ store: BuildStateStore, prefix: String, folders: OutputFolders
    ) throws(FileSystemError) -> (SourceWalker.Result, Bool) {
        let walked = Mutex<Result<SourceWalker.Result, FileSystemError>?>(nil)
        let present = Atomic<Bool>(false)
        let configuration = configuration
        ParallelRunner.run(count: 2, width: options.jobs) { index in
            if index == 0 {
                let result = Result { () throws(FileSystemError) in
                    try SourceWalker(configuration: configuration).walk()
                }
                walked.withLock { $0 = result }
            } else {
                let found = store.recordedVariantsArePresent {
                    Self.isPresent($0, bytes: $1, prefix: prefix, folders: folders)
                }
                present.store(found, ordering: .relaxed)
            }
            return true
        }
        return (try walked.withLock { $0! }.get(), present.load(ordering: .relaxed))
    }

    /// True when a previously written variant file is still there with its recorded size, and
    /// so is each of its format siblings.
    static func isPresent(_ entry: Manifest.VariantEntry, prefix: String, folders: OutputFolders) -> Bool {
        isPresent(entry.path, bytes: entry.bytes, prefix: prefix, folders: folders)
            && (entry.formats ?? [:]).values.allSatisfy {
                isPresent($0.path, bytes: $0.bytes, prefix: prefix, folders: folders)
            }
    }

    /// True when the variant file at `path` (as the manifest names it) is there with `bytes` bytes.
    static func isPresent(_ path: String, bytes: Int, prefix: String, folders: OutputFolders) -> Bool {
        let relative =
            prefix.isEmpty
            ? path : path.hasPrefix(prefix + "/") ? String(path.dropFirst(prefix.count + 1)) : nil
        guard let relative, ContentAddress.isVariantPath(relative),
            let (folderName, fileName) = ContentAddress.split(relative),
            let folder = try? folders.folder(folderName, create: false),
            let status = try? folder.status(of: fileName)
        else { return false }
        return status.kind == .regular && status.size == bytes
    }
}
