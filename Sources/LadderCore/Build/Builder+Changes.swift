import Foundation
import LadderImaging
import LadderManifest
import Synchronization

/// A build after a few sources changed (docs/BUILDS.md, "At scale"): the build record tells
/// which sources changed, only those are hashed and planned, against only the images they had
/// or now have, and the manifest, its index, the snapshot, the stat cache and the record are
/// written from what changed, the other images' bytes copied as the previous build wrote them.
/// The bytes are those the full build writes; whatever this path cannot vouch for before it
/// renders (a failure or a warning on record, another shard, a snapshot that is not the file
/// the record names, a variant to make again for an image that unchanged sources share, a
/// damaged or unexpected file) leaves it to the full build.
extension Builder {
    /// At most this many changed (or removed) sources take this path.
    static func changeLimit(sources: Int) -> Int { max(64, sources / 20) }

    /// What the full build needs besides the walk, as `runLocked` made it.
    struct BuildInputs {
        var scope: BuildScope
        var store: BuildStateStore
        var manifestFolder: Directory
        var folders: OutputFolders
        var clean: CleanPhase
        var descriptions: [String: [String]]
        var fingerprints: [String: String]
        var attempt: String
        var generator: Manifest.Generator
        var recordKey: String
        var scanStarted: Int64
        /// True when every variant file the last build recorded was found as recorded.
        var recordedVariantsArePresent: Bool
    }

    /// The build made from what changed since the last one, or nil (nothing written) when this
    /// build must be the full one.
    func runChanges(
        files: [SourceFile], walkWarnings: [SourceWarning], inputs: BuildInputs, started: Date
    ) throws -> BuildReport? {
        let (scope, store, manifestFolder, folders) = (
            inputs.scope, inputs.store, inputs.manifestFolder, inputs.folders
        )
        let prefix = configuration.outputPrefixInManifest
        let manifestName = FilePath.name(scope.manifestPath)
        let indexWriter = ManifestIndexWriter(manifestFolder: manifestFolder, manifestName: manifestName)
        guard options.shard == nil, let stateFolder = store.folder,
            let (changes, manifestStatus) = store.changedSources(
                files: files, key: inputs.recordKey, manifestFolder: manifestFolder,
                limit: Self.changeLimit(sources: files.count),
                isPresent: inputs.recordedVariantsArePresent
                    ? nil : { Self.isPresent($0, bytes: $1, prefix: prefix, folders: folders) }),
            // The snapshot the recorded build left, still that file (else the full build writes
            // it again): it is read and spliced on another thread below.
            let snapshotStatus = store.snapshotStatus(),
            changes.snapshot == BuildRecord.identity(snapshotStatus)
        else { return nil }
        // A changed source is likely to be rendered: start the workers now, so that their
        // start-up overlaps with reading, hashing and planning (as the full build does).
        if !changes.changed.isEmpty { workers.prepare() }
        // The manifest the record vouches for, read a range at a time, never whole.
        guard indexWriter.isComplete, let manifestFile = try? manifestFolder.openFile(manifestName),
            manifestFile.status == manifestStatus, let text = try? ManifestText(manifestFile),
            var header = text.header(), header.failures.isEmpty, header.failureSHA1 == nil, header.shard == nil,
            let statFile = try? stateFolder.openFile(StateFolder.statCache)
        else { return nil }

        // What the replaced paths were, from the stat cache (checked against their images below).
        let replaced = Set(changes.replacedPaths)
        let replacedBytes = Set(changes.replacedPaths.map { Array($0.utf8) })
        guard let oldSHA1 = try? StatCache.recordedSHA1s(of: replacedBytes, in: statFile) else { return nil }
        guard oldSHA1.count == replaced.count else { return nil }

        // Hash the changed sources.
        let changedFiles = changes.changed.map { files[$0] }
        let hashes = SourceHashing(
            changedFiles, cache: StatCache(), limit: configuration.limits.maxFileBytes, width: options.jobs * 2)
        var affected = Set(oldSHA1.values)
        for source in hashes.sources { if case .sha1(let sha1) = source.content { affected.insert(sha1) } }

        // The affected images as they were, and every image of their index prefix files: the
        // runs of images that share those prefixes, read from the file.
        let length = ManifestIndex.prefixLength(forImageCount: text.imageCount)
        var runs: [String: ManifestText.Run] = [:]
        for prefix in Set(affected.map { String($0.prefix(length)) }) {
            guard let run = try? text.run(prefix) else { return nil }
            runs[prefix] = run
        }
        var oldEntries: [String: Manifest.ImageEntry] = [:]
        var prefixEntries: [String: Manifest.ImageEntry] = [:]
        let decoder = JSONDecoder()
        for run in runs.values {
            for image in run.images {
                // `"<sha1>" : {…}`: the object starts after the key and its colon.
                guard let entry = try? decoder.decode(Manifest.ImageEntry.self, from: Data(image.text.dropFirst(45)))
                else { return nil }
                prefixEntries[image.sha1] = entry
                if affected.contains(image.sha1) { oldEntries[image.sha1] = entry }
            }
        }
        for (path, sha1) in oldSHA1 { guard oldEntries[sha1]?.sources.contains(path) == true else { return nil } }

        // Plan the changed sources alone, against the images they had or now have.
        let oldFailures = store.failureMemory()
        let work = Planner.plan(
            sources: hashes.sources, previous: Manifest(generator: inputs.generator, images: oldEntries),
            fingerprints: inputs.fingerprints,
            knownFailure: { oldFailures.reason(for: $0, attempt: inputs.attempt) },
            fileIsPresent: { Self.isPresent($0, prefix: prefix, folders: folders) })
        for item in work.items where oldEntries[item.sha1] != nil {
            guard case .upToDate = item.action else { return nil }
        }
        if work.renderCount > 0 { workers.prepare() }

        // From here on, this build writes.
        if let observer {
            let changedSet = Set(changes.changed)
            for (index, file) in files.enumerated() where !changedSet.contains(index) {
                observer.sourceFinished(file.path, outcome: .upToDate)
            }
        }
        reportPlanned(work, files: changedFiles)
        let planned = RenderPhase.plannedFiles(
            work, fingerprints: inputs.fingerprints,
            formats: Dictionary(uniqueKeysWithValues: configuration.variants.map { ($0.name, $0.formats) }))
        if !planned.isEmpty { store.savePending(planned) }
        let render = RenderPhase(
            configuration: configuration, workers: workers, observer: observer, folders: folders,
            fingerprints: inputs.fingerprints, attempt: inputs.attempt, jobs: options.jobs)
        let observer = self.observer
        let rendered = try render.run(work, files: changedFiles) {
            observer?.sourceFinished(changedFiles[$0].path, outcome: $1)
        }
        let commit = CommitPhase(scope: scope, store: store, folders: folders, generator: inputs.generator)
        let part = commit.manifest(
            for: work, rendered: rendered, files: changedFiles, fingerprints: inputs.fingerprints,
            recipes: Dictionary(inputs.descriptions.values.map { (RecipeFingerprint.of($0), $0) }) { first, _ in first }
        )
        let mismatches = Self.extensionMismatches(in: part)
        for warning in mismatches { observer?.warning("\(warning.path): \(warning.message)") }

        // The affected images as they are now (nil: gone).
        var newEntries: [String: Manifest.ImageEntry?] = [:]
        for sha1 in affected {
            let kept = (oldEntries[sha1]?.sources ?? []).filter { !replaced.contains($0) }
            if var entry = part.images[sha1] {
                entry.sources = (entry.sources + kept).sorted()
                newEntries[sha1] = .some(entry)
            } else if var entry = oldEntries[sha1], !kept.isEmpty {
                entry.sources = kept
                newEntries[sha1] = .some(entry)
            } else {
                newEntries[sha1] = .some(nil)
            }
        }
        let imageCount =
            text.imageCount - oldEntries.count + newEntries.values.count(where: { $0 != nil })
        let previousHeader = header
        header.failures = part.failures
        header.failureSHA1 = part.failureSHA1
        header.recipes = imageCount == 0 ? nil : (header.recipes ?? [:]).merging(part.recipes ?? [:]) { old, _ in old }
        // The new manifest goes into a temporary file a piece at a time, its SHA1 taken on the
        // way on a thread of its own, so that neither it nor the old one is held (at a million
        // images each is 1.8 GB); it is put in place last, below.
        // Sources touched but not changed (their bytes hashed to what they were) leave every
        // entry as it was: the manifest is then the file already there, not spliced again.
        let sameManifest =
            header == previousHeader && newEntries.allSatisfy { sha1, entry in entry == oldEntries[sha1] }
        let newManifest = sameManifest ? nil : try manifestFolder.streamedFile(manifestName)
        let manifestSHA1: String
        if let newManifest {
            let digest = BackgroundDigest(.sha1)
            try Self.splice(text, runs: runs, header: header, imageCount: imageCount, changes: newEntries) {
                (piece) throws(FileSystemError) in
                digest.update(piece)
                try newManifest.append(piece)
            }
            manifestSHA1 = digest.hexDigest()
        } else {
            manifestSHA1 = ""
        }
        let manifestWritten = try newManifest.map { try !$0.matchesPresent() } ?? false

        // The snapshot of the new manifest (the old one read, the new one's SHA1 and the changed
        // entries spliced in) is written into its temporary file on another thread while the
        // files are made durable and the index and manifest put in place; it is put in place
        // after them. Nil: the old one did not read as a snapshot, or a source failed.
        let changedEntries = newEntries
        let snapshot = Background<HandedSnapshot?> {
            guard manifestWritten, part.failures.isEmpty,
                let old = store.openSnapshot(ifIdentity: BuildRecord.identity(snapshotStatus)),
                let file = store.newSnapshotFile()
            else { return nil }
            let spliced = try? ManifestSnapshot.spliced(old, manifestSHA1: manifestSHA1, changes: changedEntries) {
                (piece) throws(FileSystemError) in try file.append(piece)
            }
            return spliced == true ? HandedSnapshot(file: file) : nil
        }

        // Commit: the new files durable, then the index, then the manifest.
        for folder in rendered.touchedFolders.sorted() { try folders.folder(folder, create: false).synchronize() }
        try folders.output.synchronize()
        if manifestWritten {
            for (sha1, entry) in newEntries { prefixEntries[sha1] = entry }
            let written = try indexWriter.write(
                images: prefixEntries.compactMapValues { $0 }, imageCount: imageCount,
                prefixes: Set(affected.map { String($0.prefix(ManifestIndex.prefixLength(forImageCount: imageCount))) })
            )
            if written == nil || ManifestIndex.prefixLength(forImageCount: imageCount) != length {
                // The prefix length changed: every prefix file, from the whole manifest.
                let manifestBytes = try Self.splice(
                    text, runs: runs, header: header, imageCount: imageCount, changes: newEntries)
                try indexWriter.write(try Manifest(jsonData: Data(manifestBytes)))
            }
            _ = try newManifest?.commit()
            try manifestFolder.synchronize()
            store.saveSnapshot(streamed: snapshot.value?.file)
        }

        // Clean, then keep what saves time next run.
        let removed = try inputs.clean.removeStale(
            previous: Manifest(generator: inputs.generator, images: oldEntries), pending: planned,
            manifest: Manifest(generator: inputs.generator, images: newEntries.compactMapValues { $0 }))
        if !planned.isEmpty { store.removePending() }
        var hashed: [SourceFile: String] = [:]
        for (file, source) in zip(changedFiles, hashes.sources) {
            if case .sha1(let sha1) = source.content { hashed[file] = sha1 }
        }
        let statCacheWritten: Bool
        if let newStatCache = try? stateFolder.streamedFile(StateFolder.statCache),
            (try? StatCache.spliced(
                statFile, scannedAt: inputs.scanStarted, removing: replacedBytes, adding: hashed, into: newStatCache))
                == true
        {
            statCacheWritten = true
            _ = try? newStatCache.commit()
        } else {
            statCacheWritten = false
        }
        var failureMemory = rendered.failureMemory
        for item in work.items {
            if case .knownFailure(let reason) = item.action {
                failureMemory.bySHA1[item.sha1] = FailureMemory.Failure(attempt: inputs.attempt, reason: reason)
            }
        }
        if failureMemory != oldFailures { store.save(failureMemory) }
        saveRecord(
            files: files, changes: changes, work: work, failures: part.failures, newEntries: newEntries,
            mismatches: mismatches, imageCount: imageCount, inputs: inputs, writable: statCacheWritten)

        var report = BuildReport(
            sources: files.count, built: rendered.entries.count, skipped: imageCount - rendered.entries.count,
            shard: nil, inOtherShards: 0,
            failed: part.failures.sorted { $0.key < $1.key }.map {
                BuildReport.Failure(source: $0.key, reason: $0.value)
            },
            warnings: (walkWarnings + mismatches).sorted { $0.path < $1.path }, hashed: hashes.hashed,
            filesWritten: rendered.filesWritten, siblingsWritten: rendered.siblingsWritten,
            siblingsSkipped: rendered.siblingsSkipped, filesRemoved: removed,
            manifestWritten: manifestWritten, manifestPath: scope.manifestPath,
            outputDirectory: configuration.outputDirectory, seconds: Date().timeIntervalSince(started))
        report.fromChanges = true
        return report
    }

    /// A snapshot's file, written on the thread that made it and handed to this one, which
    /// alone touches it from then on (`Background` hands it over once it is made).
    struct HandedSnapshot: @unchecked Sendable {
        let file: Directory.StreamedFile
    }

    /// The manifest `text` with its images changed by `changes` (nil: removed) and the top-level
    /// fields of `header`: the bytes `jsonData()` gives for the whole manifest. `runs` are the
    /// runs of `text`'s images under every prefix that a change's SHA1 starts with, all of one
    /// length.
    static func splice(
        _ text: ManifestText, runs: [String: ManifestText.Run], header: Manifest, imageCount: Int,
        changes: [String: Manifest.ImageEntry?]
    ) throws(FileSystemError) -> [UInt8] {
        var out: [UInt8] = []
        try splice(text, runs: runs, header: header, imageCount: imageCount, changes: changes) { out += $0 }
        return out
    }

    /// The same bytes, handed to `write` a piece at a time in their order (the unchanged
    /// images' texts read from the file as they are), so that nothing holds the whole of
    /// either manifest.
    static func splice(
        _ text: ManifestText, runs: [String: ManifestText.Run], header: Manifest, imageCount: Int,
        changes: [String: Manifest.ImageEntry?],
        into write: (UnsafeBufferPointer<UInt8>) throws(FileSystemError) -> Void
    ) throws(FileSystemError) {
        func put(_ bytes: some Collection<UInt8>) throws(FileSystemError) {
            try Array(bytes).withUnsafeBufferPointer { buffer throws(FileSystemError) in try write(buffer) }
        }
        let pieces = Manifest.JSONPieces(header: header)
        guard imageCount > 0 else { return try put(pieces.withoutImages) }
        try put(pieces.opening)
        let firstIndent = Array("    ".utf8)
        let separator = Array(",\n    ".utf8)
        var first = true
        /// What comes before an image: the first one's indent, or a separator.
        func startImage() throws(FileSystemError) {
            try put(first ? firstIndent : separator)
            first = false
        }
        func emitNew(_ sha1: String) throws(FileSystemError) {
            guard let entry = changes[sha1]! else { return }
            try startImage()
            try put(pieces.image(sha1, entry, first: true).dropFirst(4))
        }
        // Every run's prefix has one length.
        let length = runs.keys.first?.utf8.count ?? 0
        let changesByPrefix = Dictionary(grouping: changes.keys) { String($0.prefix(length)) }
        precondition(changesByPrefix.keys.allSatisfy { runs[$0] != nil }, "a change outside the runs read")
        var next = 0
        for prefix in runs.keys.sorted() {
            let run = runs[prefix]!
            // The images before this run, copied as one text with their separators.
            if next < run.indices.lowerBound {
                try startImage()
                try text.copy(next..<run.indices.lowerBound, into: write)
            }
            var pending = (changesByPrefix[prefix] ?? []).sorted()[...]
            for image in run.images {
                while let change = pending.first, change < image.sha1 {
                    try emitNew(change)
                    pending.removeFirst()
                }
                if pending.first == image.sha1 {
                    try emitNew(image.sha1)
                    pending.removeFirst()
                } else {
                    try startImage()
                    try put(image.text)
                }
            }
            for change in pending { try emitNew(change) }
            next = run.indices.upperBound
        }
        if next < text.imageCount {
            try startImage()
            try text.copy(next..<text.imageCount, into: write)
        }
        try put(pieces.closing)
    }

    /// Writes the record of a build made from what changed: the sources' lines from this walk,
    /// the unchanged images' variant lines as recorded, the changed ones' anew.
    private func saveRecord(
        files: [SourceFile], changes: BuildRecord.Changes, work: WorkList, failures: [String: String],
        newEntries: [String: Manifest.ImageEntry?], mismatches: [SourceWarning], imageCount: Int,
        inputs: BuildInputs, writable: Bool
    ) {
        let store = inputs.store
        var outcomes = Array(repeating: BuildRecord.Outcome.upToDate, count: files.count)
        for (position, role) in zip(changes.changed, work.roles) {
            switch role {
            case .image: if failures[files[position].path] != nil { outcomes[position] = .failed }
            case .inOtherShard, .unreadable: return store.removeRecord()
            }
        }
        guard writable,
            let manifest = try? inputs.manifestFolder.status(of: FilePath.name(inputs.scope.manifestPath)),
            let file = store.newRecordFile()
        else { return store.removeRecord() }
        let record = BuildRecord(
            scannedAt: inputs.scanStarted,
            key: Self.recordKey(
                scope: inputs.scope, descriptions: inputs.descriptions, attempt: inputs.attempt,
                generator: inputs.generator, failureMemory: store.failureMemoryBytes()),
            manifest: manifest, snapshot: store.snapshotStatus(), skipped: imageCount, inOtherShards: 0,
            outcomes: outcomes, variants: [],
            failures: failures, warnings: mismatches)
        // The variant lines in the manifest's order: by image, the changed ones in their place;
        // the record is written into its file a piece at a time, as the manifest is. SHA1s are
        // compared as bytes: the record has three lines an image.
        let changedImages = newEntries.keys.sorted().map { (sha1: $0, bytes: Array($0.utf8), entry: newEntries[$0]!) }
        var damaged = false
        let written = try? record.write(files: files, into: file) { () throws(FileSystemError) in
            var next = 0
            for line in BuildRecord.Lines(rest: changes.variantText) {
                // `v <bytes> <path>`: the path's file name starts with the image's SHA1.
                guard let slash = line.lastIndex(of: UInt8(ascii: "/")) ?? line.lastIndex(of: 9),
                    slash + 41 <= line.endIndex
                else {
                    damaged = true
                    return
                }
                let sha1 = line[(slash + 1)..<(slash + 41)]
                while next < changedImages.count, !sha1.lexicographicallyPrecedes(changedImages[next].bytes) {
                    if let entry = changedImages[next].entry {
                        try file.append(BuildRecord.variantLines(of: [(changedImages[next].sha1, entry)]))
                    }
                    next += 1
                }
                // A changed image's old lines give way to its new ones.
                if next > 0 && sha1.elementsEqual(changedImages[next - 1].bytes) { continue }
                try file.append(changes.variantText[line.startIndex...line.endIndex])
            }
            for image in changedImages[next...] {
                if let entry = image.entry { try file.append(BuildRecord.variantLines(of: [(image.sha1, entry)])) }
            }
        }
        store.saveRecord(streamed: written == true && !damaged ? file : nil)
    }
}
