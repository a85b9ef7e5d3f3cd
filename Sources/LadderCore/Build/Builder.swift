import Foundation
public import LadderImaging
import LadderManifest
import Synchronization

/// Runs a pipeline: finds the sources, decides from the previous manifest what is out of date,
/// renders only that, writes every file safely and commits the new manifest last.
///
/// Crash safety: variant files are written under temporary names, flushed and renamed; the
/// manifest is replaced the same way only after every file it names is on disk, and stale files
/// are deleted only after that. At any moment the manifest on disk describes complete files.
public final class Builder: Sendable {
    public struct Options: Sendable {
        /// Sources processed at once.
        public var jobs: Int
        /// Wait for another build holding the output folder (else fail at once).
        public var waitForLock: Bool
        /// Build only this share of the sources, into a partial manifest.
        public var shard: Shard?

        public init(jobs: Int = Builder.defaultJobs, waitForLock: Bool = true, shard: Shard? = nil) {
            self.jobs = jobs
            self.waitForLock = waitForLock
            self.shard = shard
        }
    }

    public let configuration: PipelineConfiguration
    public let options: Options
    let renderer: any SourceRendering
    let observer: (any BuildObserving)?
    let versions: Imaging.Versions
    let ladderVersion: String

    public init(
        configuration: PipelineConfiguration, options: Options = Options(),
        renderer: any SourceRendering = ExclusiveRenderer(),
        observer: (any BuildObserving)? = nil, versions: Imaging.Versions = Imaging.versions,
        ladderVersion: String = LadderVersion.current
    ) {
        self.configuration = configuration
        self.options = options
        self.renderer = renderer
        self.observer = observer
        self.versions = versions
        self.ladderVersion = ladderVersion
    }

    /// All cores.
    public static var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The folder, relative to pipeline.json's folder, where ladder keeps its own state.
    public static let stateFolder = ".ladder"

    // MARK: - Run

    public func run() throws(BuildError) -> BuildReport {
        let started = Date()
        return try BuildError.mapping(operation: "build", path: configuration.outputDirectory) {
            try runLocked(started: started)
        }
    }

    private func runLocked(started: Date) throws -> BuildReport {
        let shard = options.shard
        let output = try Directory.create(configuration.outputDirectory)
        // Shards of one build may share an output folder: each holds the folder's lock shared
        // and its own shard's lock exclusively. A whole build holds the folder's lock exclusively.
        let outputLock = try Self.acquire(
            waitAllowed: options.waitForLock, folder: configuration.outputDirectory,
            announce: { observer?.warning("waiting for another ladder build to finish with '\($0)'") }
        ) { wait in try output.lockFile(OutputOwnership.lockFileName, wait: wait, shared: shard != nil) }
        let stateDirectory: Directory?
        var shardLock: FileLock?
        if let shard {
            let state = try Directory.create(configuration.resolve(Self.stateFolder))
            shardLock = try Self.acquire(
                waitAllowed: options.waitForLock, folder: configuration.outputDirectory,
                announce: { _ in observer?.warning("waiting for another ladder build of shard \(shard) to finish") }
            ) { wait in try state.lockFile(shard.tag + ".lock", wait: wait) }
            stateDirectory = state
        } else {
            stateDirectory = try? Directory.create(configuration.resolve(Self.stateFolder))
        }
        defer { withExtendedLifetime((outputLock, shardLock)) {} }
        if let stateDirectory { try removeTemporaryStateFiles(stateDirectory) }

        let manifestPath = shard?.partialManifestPath(for: configuration.manifestPath) ?? configuration.manifestPath
        let manifestFolder = try Directory.create(FilePath.parent(manifestPath))
        let folders = OutputFolders(output)
        try removeTemporaryFiles(folders: folders, manifestFolder: manifestFolder, manifestName: FilePath.name(manifestPath))

        let snapshotName = ManifestSnapshot.fileName + (shard.map { "." + $0.tag } ?? "")
        var loaded = loadPreviousManifest(
            at: manifestPath, folder: manifestFolder, state: stateDirectory, snapshotName: snapshotName)
        if shard != nil, loaded.manifest == nil {
            // After `ladder merge` the shard's own manifest is gone; the merged one holds its
            // entries as well (those of other shards are never looked up).
            loaded.manifest =
                loadPreviousManifest(
                    at: configuration.manifestPath, folder: manifestFolder, state: stateDirectory,
                    snapshotName: ManifestSnapshot.fileName
                ).manifest
        }
        let (previous, snapshotIsCurrent) = loaded

        let scanStarted = Self.now()
        let walk = try SourceWalker(configuration: configuration).walk()
        for warning in walk.warnings { observer?.warning("\(warning.path): \(warning.message)") }
        let oldCache = (try? stateDirectory?.readFile("stat-cache")).map { StatCache(serialized: $0) } ?? StatCache()

        let fingerprints = Dictionary(
            uniqueKeysWithValues: configuration.variants.map {
                (
                    $0.name,
                    RecipeFingerprint.compute(
                        $0, background: configuration.background, keep: configuration.metadata.keep, versions: versions)
                )
            })
        let recipes = Dictionary(uniqueKeysWithValues: configuration.variants.map { ($0.name, $0) })
        let settings = RenderSettings(
            background: configuration.background, keep: configuration.metadata.keep, limits: configuration.limits)
        let failureFile = FailureMemory.fileName(shard: shard)
        let oldFailures =
            (try? stateDirectory?.readFile(failureFile)).map { FailureMemory(serialized: $0) } ?? FailureMemory()
        let attempt = FailureMemory.attempt(
            fingerprints: fingerprints, limits: configuration.limits, ladderVersion: ladderVersion)

        let prefix = configuration.outputPrefixInManifest

        let state = Mutex(BuildState(sources: walk.files.count))
        let files = walk.files
        observer?.buildStarted(total: files.count)
        // Largest first, so that the last sources to finish are small ones and no core idles
        // at the end; twice as many threads as jobs, so that reading, hashing and writing on one
        // thread overlap with rendering for another (the renderer limits renders to `jobs`).
        let order = Self.largestFirst(files, cache: oldCache)

        ParallelRunner.run(count: files.count, width: options.jobs * 2) { position in
            let index = order[position]
            let file = files[index]

            let outcome: SourceOutcome
            do {
                outcome = try self.process(
                    file, at: index, previous: previous, cache: oldCache,
                    failures: (oldFailures, attempt), fingerprints: fingerprints, recipes: recipes,
                    settings: settings, prefix: prefix, folders: folders, state: state)
            } catch let error as FileSystemError {
                state.withLock { $0.fatal = $0.fatal ?? error }
                return false
            } catch {
                state.withLock {
                    $0.fatal =
                        $0.fatal ?? FileSystemError(operation: "build", path: file.path, code: 0, reason: "\(error)")
                }
                return false
            }
            self.observer?.sourceFinished(file.path, outcome: outcome)
            return true
        }

        var result = state.withLock { $0 }
        if let fatal = result.fatal { throw fatal }

        // Every new file is written; make the renames durable before the manifest names them.
        for folder in result.touchedFolders.sorted() {
            try folders.folder(folder, create: false).synchronize()
        }
        try output.synchronize()

        var manifest = assembleManifest(&result, files: files)
        if let shard {
            // The walk lists the files sorted by path, as every shard does.
            manifest.shard = Manifest.Shard(
                index: shard.index, count: shard.count, sources: files.count,
                sourcesSHA1: Self.sourceListSHA1(files.map(\.path)), recipes: fingerprints)
        }
        let mismatches = Self.extensionMismatches(in: manifest)
        for warning in mismatches { observer?.warning("\(warning.path): \(warning.message)") }
        // The index files first, then the manifest: both name only files that exist.
        if shard == nil { try ManifestIndexWriter(manifestFolder: manifestFolder).write(manifest) }
        // Deterministic encoding: a manifest equal to the previous one has its bytes already.
        var manifestWritten = false
        if manifest != previous || !snapshotIsCurrent {
            let manifestData = [UInt8](manifest.jsonData())
            let manifestName = FilePath.name(manifestPath)
            if (try? manifestFolder.readFile(manifestName)) != manifestData {
                try manifestFolder.writeAtomically(manifestData, to: manifestName)
                try manifestFolder.synchronize()
                manifestWritten = true
            }
            let snapshot = ManifestSnapshot(manifestSHA1: Checksum.hex(.sha1, of: manifestData), manifest: manifest)
            try? stateDirectory?.writeAtomically(snapshot.serialized(), to: snapshotName)
        }
        let removed = try removeStaleFiles(previous: previous, folders: folders, manifest: manifest, prefix: prefix)

        var cache = StatCache(scannedAt: scanStarted)
        for (index, file) in files.enumerated() { if let sha1 = result.sha1s[index] { cache.record(file, sha1: sha1) } }
        if let stateDirectory, cache.entries != oldCache.entries || result.distrustedCacheEntries {
            try? stateDirectory.writeAtomically(cache.serialized(), to: "stat-cache")
        }
        if let stateDirectory, result.failureMemory != oldFailures {
            try? stateDirectory.writeAtomically(result.failureMemory.serialized(), to: failureFile)
        }

        return BuildReport(
            sources: files.count, built: result.built.count, skipped: result.upToDate.count,
            shard: shard, inOtherShards: result.inOtherShards,
            failed: manifest.failures.sorted { $0.key < $1.key }.map {
                BuildReport.Failure(source: $0.key, reason: $0.value)
            },
            warnings: (walk.warnings + mismatches).sorted { $0.path < $1.path }, hashed: result.hashed,
            filesWritten: result.filesWritten,
            filesRemoved: removed,
            manifestWritten: manifestWritten, manifestPath: manifestPath,
            outputDirectory: configuration.outputDirectory, seconds: Date().timeIntervalSince(started))
    }

    // MARK: - One source

    /// What the workers share, behind a mutex.
    struct BuildState: Sendable {
        /// By position in the walk, never by path: Swift's strings compare names that differ
        /// only by Unicode normalization equal, and those are two files.
        var sha1s: [String?]
        /// Sources that could not be read (so have no SHA1), by position in the walk.
        var unreadable: [Int: String] = [:]
        /// SHA1s that a worker has taken on; later sources with the same bytes only add their path.
        var claimed: Set<String> = []
        var entries: [String: Manifest.ImageEntry] = [:]
        var failureBySHA1: [String: String] = [:]
        /// Render failures, to skip them while nothing they depended on changes.
        var failureMemory = FailureMemory()
        var built: Set<String> = []
        var upToDate: Set<String> = []
        var touchedFolders: Set<String> = []
        var filesWritten = 0
        var hashed = 0
        var distrustedCacheEntries = false
        /// Sources left to other shards.
        var inOtherShards = 0
        var fatal: FileSystemError?

        init(sources: Int) { sha1s = Array(repeating: nil, count: sources) }
    }

    private func process(
        _ file: SourceFile, at index: Int, previous: Manifest?, cache: StatCache,
        failures: (memory: FailureMemory, attempt: String), fingerprints: [String: String],
        recipes: [String: VariantRecipe], settings: RenderSettings, prefix: String, folders: OutputFolders,
        state: borrowing Mutex<BuildState>
    ) throws -> SourceOutcome {
        let shard = options.shard
        var bytes: [UInt8]?
        let sha1: String
        if let cached = cache.sha1(for: file) {
            sha1 = cached
        } else {
            do {
                let read = try Self.readSource(file.absolutePath, limit: configuration.limits.maxFileBytes)
                bytes = read
                sha1 = Checksum.hex(.sha1, of: read)
            } catch {
                if let shard, !shard.owns(unreadablePath: file.path) {
                    state.withLock { $0.inOtherShards += 1 }
                    return .inOtherShard
                }
                state.withLock { $0.unreadable[index] = error.reason }
                return .failed(error.reason)
            }
            let distrusted = cache.entry(for: file)?.status == file.status
            state.withLock {
                $0.hashed += 1
                if distrusted { $0.distrustedCacheEntries = true }
            }
        }
        if let shard, !shard.owns(sha1: sha1) {
            state.withLock {
                $0.sha1s[index] = sha1  // for the stat cache
                $0.inOtherShards += 1
            }
            return .inOtherShard
        }
        let isClaimant = state.withLock { state in
            state.sha1s[index] = sha1
            return state.claimed.insert(sha1).inserted
        }
        guard isClaimant else { return .upToDate }  // another path with the same bytes does the work

        if let reason = failures.memory.reason(for: sha1, attempt: failures.attempt) {
            // Failed before with these bytes, recipes and limits: it would fail again.
            state.withLock {
                $0.failureMemory.bySHA1[sha1] = FailureMemory.Failure(attempt: failures.attempt, reason: reason)
            }
            return fail(file, sha1: sha1, reason, state: state)
        }

        let previousEntry = previous?.images[sha1]
        // An entry written before manifests had placeholders is made again, whole.
        let plan = Planner.plan(
            previous: previousEntry?.placeholder == nil ? nil : previousEntry, fingerprints: fingerprints
        ) { entry in
            self.isPresent(entry, prefix: prefix, folders: folders)
        }
        if plan.isUpToDate, var previousEntry {
            previousEntry.sources = []  // filled in from this walk
            state.withLock {
                $0.entries[sha1] = previousEntry
                $0.upToDate.insert(sha1)
            }
            return .upToDate
        }

        // Something must be made: read the bytes (unless just read) and make sure they are the
        // bytes that were hashed.
        let source: [UInt8]
        if let bytes {
            source = bytes
        } else {
            do {
                source = try Self.readSource(file.absolutePath, limit: configuration.limits.maxFileBytes)
            } catch {
                return fail(file, sha1: sha1, error.reason, state: state)
            }
        }
        if bytes == nil, Checksum.hex(.sha1, of: source) != sha1 {
            return fail(
                file, sha1: sha1, "the file changed while ladder was reading it; run the build again", state: state)
        }

        let rendered: RenderedSource
        do {
            rendered = try renderer.render(source, variants: plan.render.compactMap { recipes[$0] }, settings: settings)
        } catch let failure {
            if failure.concernsTheSource {
                state.withLock {
                    $0.failureMemory.bySHA1[sha1] = FailureMemory.Failure(
                        attempt: failures.attempt, reason: failure.reason)
                }
            }
            return fail(file, sha1: sha1, failure.reason, state: state)
        }

        var variants = plan.reuse
        for variant in rendered.variants {
            let fingerprint = fingerprints[variant.name] ?? ""
            let relative = ContentAddress.path(sha1: sha1, variant: variant.name, fingerprint: fingerprint)
            let (folderName, fileName) = ContentAddress.split(relative)!
            try folders.folder(folderName, create: true).writeAtomically(variant.bytes, to: fileName)
            variants[variant.name] = Manifest.VariantEntry(
                path: prefix.isEmpty ? relative : prefix + "/" + relative, width: variant.size.width,
                height: variant.size.height, bytes: variant.bytes.count,
                sha256: Checksum.hex(.sha256, of: variant.bytes),
                progressive: variant.progressive, scans: variant.scans, recipe: fingerprint,
                scanEnds: variant.progressive ? JPEGStructure.scanEnds(of: variant.bytes) : nil)
            state.withLock {
                $0.touchedFolders.insert(folderName)
                $0.filesWritten += 1
            }
        }
        var entry = Manifest.ImageEntry(
            sources: [], width: rendered.facts.size.width, height: rendered.facts.size.height, variants: variants,
            format: rendered.facts.format, bytes: source.count, orientation: rendered.facts.orientation,
            captured: rendered.facts.captured, gpsRemoved: rendered.facts.hadGPS,
            placeholder: rendered.facts.placeholder?.thumbHash, averageColor: rendered.facts.placeholder?.averageColor,
            hasAlpha: rendered.facts.isTransparent)
        if !plan.reuse.isEmpty, let previousEntry, previousEntry.placeholder != nil {
            // Same bytes, same picture: keep the placeholder made with the first variants, so
            // that remaking one variant does not change it.
            entry.placeholder = previousEntry.placeholder
            entry.averageColor = previousEntry.averageColor
            entry.hasAlpha = previousEntry.hasAlpha
        }
        state.withLock {
            $0.entries[sha1] = entry
            $0.built.insert(sha1)
        }
        return .built
    }

    private func fail(
        _ file: SourceFile, sha1: String, _ reason: String, state: borrowing Mutex<BuildState>
    ) -> SourceOutcome {
        state.withLock { $0.failureBySHA1[sha1] = reason }
        return .failed(reason)
    }

    /// True when a previously written variant file is still there with its recorded size.
    private func isPresent(_ entry: Manifest.VariantEntry, prefix: String, folders: OutputFolders) -> Bool {
        let relative =
            prefix.isEmpty
            ? entry.path : entry.path.hasPrefix(prefix + "/") ? String(entry.path.dropFirst(prefix.count + 1)) : nil
        guard let relative, ContentAddress.isVariantPath(relative),
            let (folderName, fileName) = ContentAddress.split(relative),
            let folder = try? folders.folder(folderName, create: false),
            let status = try? folder.status(of: fileName)
        else { return false }
        return status.kind == .regular && status.size == entry.bytes
    }

    // MARK: - Manifest

    private func assembleManifest(_ state: inout BuildState, files: [SourceFile]) -> Manifest {
        let shard = options.shard
        var images: [String: Manifest.ImageEntry] = [:]
        var failures: [String: String] = [:]
        var failureSHA1: [String: String] = [:]
        for (index, reason) in state.unreadable where shard?.owns(unreadablePath: files[index].path) ?? true {
            failures[files[index].path] = reason
        }
        for (index, file) in files.enumerated() {
            guard let sha1 = state.sha1s[index], shard?.owns(sha1: sha1) ?? true else { continue }
            if let reason = state.failureBySHA1[sha1] {
                failures[file.path] = reason
                failureSHA1[file.path] = sha1
            } else if var entry = images[sha1] ?? state.entries[sha1] {
                entry.sources.append(file.path)
                images[sha1] = entry
            }
        }
        for (sha1, entry) in images { images[sha1]?.sources = entry.sources.sorted() }
        return Manifest(
            generator: Manifest.Generator(
                ladder: ladderVersion, libvips: versions.libvips, libjpeg: versions.libjpeg, libexif: versions.libexif),
            images: images, failures: failures, failureSHA1: failureSHA1.isEmpty ? nil : failureSHA1)
    }

    /// The manifest the last build left, from its snapshot when the manifest file still has
    /// the bytes the snapshot was made from, else from its JSON. `snapshotIsCurrent` is false
    /// when the snapshot must be written again.
    private func loadPreviousManifest(
        at path: String, folder manifestFolder: Directory, state: Directory?, snapshotName: String
    ) -> (manifest: Manifest?, snapshotIsCurrent: Bool) {
        guard let bytes = try? manifestFolder.readFile(FilePath.name(path)) else { return (nil, false) }
        if let state, let snapshotBytes = try? state.readFile(snapshotName),
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

    /// Sources whose extension names another format than their content: ladder goes by the
    /// content, but other tools (and web servers choosing a content type) may not.
    static func extensionMismatches(in manifest: Manifest) -> [SourceWarning] {
        var warnings: [SourceWarning] = []
        for entry in manifest.images.values {
            guard let format = entry.format.flatMap(ImageFormat.init(rawValue:)) else { continue }
            warnings += entry.sources.compactMap { extensionMismatch(path: $0, format: format) }
        }
        return warnings
    }

    /// A warning when the extension of `path` names another format than `format`, its content's.
    static func extensionMismatch(path: String, format: ImageFormat) -> SourceWarning? {
        let name = FilePath.name(path)
        guard let dot = name.lastIndex(of: "."),
            let named = ImageFormat.named(byExtension: String(name[name.index(after: dot)...])), named != format
        else { return nil }
        return SourceWarning(
            path: path,
            message:
                "named like \(named.rawValue.uppercased()) but the content is \(format.rawValue.uppercased()); ladder goes by the content"
        )
    }

    // MARK: - Cleaning

    /// Deletes the temporary files of runs that were killed (only ladder's own, by name). A
    /// shard deletes only its own temporary files (those of its variants and of its partial
    /// manifest): other shards may be writing into the same folders.
    private func removeTemporaryFiles(
        folders: OutputFolders, manifestFolder: Directory, manifestName: String
    ) throws {
        let output = folders.output
        func isOurs(_ name: String, variant: Bool) -> Bool {
            guard let finalName = Self.finalName(ofTemporary: name) else { return false }
            guard let shard = options.shard else { return true }
            return variant ? shard.owns(sha1: String(finalName.prefix(40))) : finalName == manifestName
        }
        for name in try manifestFolder.entries(sorted: false) where isOurs(name, variant: false) {
            try manifestFolder.removeFile(name)
        }
        for folderName in try output.entries(sorted: false) where folderName.utf8.count == 2 {
            guard let folder = try? folders.folder(folderName, create: false) else { continue }
            for name in try folder.entries(sorted: false) where isOurs(name, variant: true) {
                try folder.removeFile(name)
            }
        }
        for name in try output.entries(sorted: false) where isOurs(name, variant: false) {
            try output.removeFile(name)
        }
    }

    /// Deletes the temporary files killed runs left in the build state folder: all of them in a
    /// whole build, only this shard's in a shard (whose files carry its tag).
    private func removeTemporaryStateFiles(_ state: Directory) throws {
        for name in try state.entries(sorted: false) {
            guard let finalName = Self.finalName(ofTemporary: name) else { continue }
            if let shard = options.shard, !finalName.contains(shard.tag) { continue }
            try state.removeFile(name)
        }
    }

    /// The name a temporary file was to be renamed to (`.ladder-tmp-<pid>-<random>-<name>`), or
    /// nil when `name` is not one of ladder's temporary files.
    static func finalName(ofTemporary name: String) -> String? {
        guard name.hasPrefix(Directory.temporaryPrefix) else { return nil }
        return name.dropFirst(Directory.temporaryPrefix.count).split(
            separator: "-", maxSplits: 2, omittingEmptySubsequences: false
        ).last.map(String.init)
    }

    /// Deletes the variant files the previous manifest listed and the new one does not: only
    /// those, so that files of other pipelines writing into the same folder are never touched,
    /// nor any file listed by another manifest there. A shard deletes only files of sources it
    /// owns, and leaves empty folders to the whole build.
    private func removeStaleFiles(
        previous: Manifest?, folders: OutputFolders, manifest: Manifest, prefix: String
    ) throws -> Int {
        guard let previous else { return 0 }
        let shard = options.shard
        let output = folders.output
        var stale = Self.variantFiles(of: previous, prefix: prefix).subtracting(
            Self.variantFiles(of: manifest, prefix: prefix))
        stale = stale.filter {
            ContentAddress.isVariantPath($0) && (shard?.owns(sha1: String(FilePath.name($0).prefix(40))) ?? true)
        }
        guard !stale.isEmpty else { return 0 }
        stale.subtract(OutputOwnership.filesOfOtherManifests(configuration, ownPartials: false))
        var removed = 0
        let byFolder = Dictionary(grouping: stale) { ContentAddress.split($0)!.folder }
        for (folderName, paths) in byFolder {
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
                if shard == nil, output.removeFolderIfEmpty(folderName) { try output.synchronize() }
            }
        }
        return removed
    }

    /// The variant files `manifest` lists, relative to the output folder.
    static func variantFiles(of manifest: Manifest, prefix: String) -> Set<String> {
        var files: Set<String> = []
        for entry in manifest.images.values {
            for variant in entry.variants.values {
                if let relative = prefix.isEmpty ? variant.path : FilePath.relative(variant.path, to: prefix) {
                    files.insert(relative)
                }
            }
        }
        return files
    }

    // MARK: - Helpers

    /// The processing order: sources that may need rendering by decreasing pixel count (read
    /// from the first bytes of their header; compressed size stands in when it cannot be), then
    /// the ones the stat cache knows, which are usually done at once.
    static func largestFirst(_ files: [SourceFile], cache: StatCache) -> [Int] {
        let weights = files.map { file -> Int in
            guard cache.sha1(for: file) == nil else { return 0 }
            let head = (try? Directory.open(FilePath.parent(file.absolutePath)))
                .flatMap { try? $0.readPrefix(FilePath.name(file.absolutePath), count: 64 << 10) }
            return head.flatMap(ImageDimensions.peek).map { $0.width * $0.height } ?? file.status.size * 4
        }
        return files.indices.sorted { weights[$0] > weights[$1] }
    }

    /// Reads a source file whole: no symbolic link, no special file, at most `limit` bytes.
    static func readSource(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        let folder = try Directory.open(FilePath.parent(path))
        return try folder.readFile(FilePath.name(path), limit: limit)
    }

    /// SHA1 of source paths (sorted), each followed by a line feed: what every shard of a build
    /// must agree on.
    static func sourceListSHA1(_ sortedPaths: [String]) -> String {
        var checksum = Checksum(.sha1)
        for path in sortedPaths {
            var line = Array(path.utf8)
            line.append(0x0A)
            line.withUnsafeBytes { checksum.update($0) }
        }
        return checksum.hexDigest()
    }

    /// Takes a lock with `take(wait)`: at once when it is free, else, when waiting is allowed,
    /// after announcing the wait; otherwise the build stops as locked.
    @discardableResult
    static func acquire<Lock>(
        waitAllowed: Bool, folder: String, announce: (String) -> Void, _ take: (Bool) throws -> Lock?
    ) throws -> Lock {
        if let lock = try take(false) { return lock }
        guard waitAllowed else { throw BuildError.locked(folder) }
        announce(folder)
        guard let lock = try take(true) else { throw BuildError.locked(folder) }
        return lock
    }

    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000_000)
    }
}

/// The output folder's subfolders, opened once each per build (a no-op build of 10,000 sources
/// checks 30,000 files in them).
final class OutputFolders: Sendable {
    let output: Directory
    private let opened = Mutex<[String: Directory]>([:])

    init(_ output: Directory) { self.output = output }

    /// The subfolder `name` (never a symbolic link), created when asked.
    func folder(_ name: String, create: Bool) throws(FileSystemError) -> Directory {
        if let folder = opened.withLock({ $0[name] }) { return folder }
        let folder = try output.subdirectory(name, create: create)
        opened.withLock { $0[name] = folder }
        return folder
    }
}
