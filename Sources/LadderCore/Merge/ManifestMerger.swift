import Foundation
package import LadderManifest
import Synchronization

/// Joins the partial manifests of a sharded build into the manifest an unsharded build would
/// have written, byte for byte, after checking that they fit together: every shard is there
/// once, all ran on the same sources with the same pipeline and the same software, every source
/// is covered exactly once, and no two shards disagree about an image.
///
/// The partial manifests are read from the manifest's folder (`manifest.shard-K-of-N.json`
/// beside `manifest.json`), where the shards write them, and are deleted once merged unless
/// asked to keep them. Nothing is written when any check fails.
///
/// The partial manifests are streamed (`ManifestStream`), never held: their top-level fields
/// first, then their images a batch at a time, the shards' images interleaved in SHA1 order,
/// each checked and written at once to the manifest and its index, image by image
/// (`Manifest.JSONPieces`, `ManifestIndexWriter.Stream`), into temporary files that are put in
/// place only when every check held (`mergeInOneRead`). At the first problem they are deleted
/// and the shards read again to tell every problem (`check`). What stays in memory grows only
/// with the source paths (to check that each is covered once) and the failures.
package struct ManifestMerger: Sendable {
    package let configuration: PipelineConfiguration
    /// Wait for a build holding the output folder (else fail at once).
    package var waitForLock: Bool
    /// Leave the partial manifests in place after merging.
    package var keepPartials: Bool

    package init(configuration: PipelineConfiguration, waitForLock: Bool = true, keepPartials: Bool = false) {
        self.configuration = configuration
        self.waitForLock = waitForLock
        self.keepPartials = keepPartials
    }

    package func run() throws(BuildError) -> MergeReport {
        try BuildError.mapping(operation: "merge", path: configuration.manifestPath) { try runLocked() }

    }

    private func runLocked() throws -> MergeReport {
        let output = try Directory.create(configuration.outputDirectory)
        let lock = try Builder.acquire(
            waitAllowed: waitForLock, folder: configuration.outputDirectory, announce: { _ in }
        ) { wait in try output.lockFile(OutputOwnership.lockFileName, wait: wait) }
        defer { withExtendedLifetime(lock) {} }

        let manifestPath = configuration.manifestPath
        let folder = try Directory.create(FilePath.parent(manifestPath))
        let names = try folder.entries().filter { Shard.isPartialManifestName($0, for: manifestPath) }
        var report = MergeReport(manifestPath: manifestPath, partials: names.map { FilePath.join(folder.path, $0) })

        // Every shard's next batch is read here, one at a time, while this thread checks and
        // writes: on two cores, a thread for each shard's batch took turns with this one, which
        // then also waited for malloc's locks, freeing what they had allocated.
        let parsing = DispatchQueue(label: "ladder.merge.read")
        var partials: [Partial] = []
        for (name, read) in zip(names, Self.readTopLevels(names.map { FilePath.join(folder.path, $0) })) {
            switch read {
            case .success(let stream):
                partials.append(
                    Partial(name: name, header: stream.header, imageCount: stream.imageCount) {
                        let images = try stream.images()
                        return ImageReader(prefetchingOn: parsing) { () throws(ManifestStream.Failure) in
                            try images.next(atLeast: 256)
                        }
                    })
            case .failure(let error):
                let path = FilePath.join(folder.path, name)
                report.problems.append(MergeProblem(path: path, kind: .unreadable, message: Self.message(error)))
            }
        }
        if names.isEmpty {
            let pattern = Shard.partialManifestName(for: manifestPath, index: 1, count: 2)
                .replacingOccurrences(of: "1-of-2", with: "K-of-N")
            report.problems.append(
                MergeProblem(
                    path: folder.path, kind: .noPartials,
                    message:
                        "no partial manifests (\(pattern)) here; run ladder build --shard K/N for every shard and gather their output in this folder"
                ))
        }
        guard report.problems.isEmpty else { return report }

        let name = FilePath.name(manifestPath)
        let written: (plan: Plan, replaced: Bool)
        if let merged = try Self.mergeInOneRead(partials, manifestPath: manifestPath, folder: folder) {
            written = merged
        } else {
            // Something is wrong: read again to tell every problem, or, when the shards are
            // only out of order, to sort their images and write them.
            let (plan, problems) = Self.check(partials, manifestPath: manifestPath)
            report.problems = problems.map {
                var problem = $0
                problem.path = FilePath.join(folder.path, problem.path)
                return problem
            }
            guard let plan, report.problems.isEmpty else { return report }
            let replaced = try Self.write(plan.header, imageCount: plan.imageCount, into: folder, name: name) {
                try Self.forEachImage(of: plan, $0)
                return true
            }
            written = (plan, replaced ?? false)
        }
        let plan = written.plan
        report.shards = plan.shards.count
        report.sources = plan.shards.first?.header.shard?.sources ?? 0
        report.images = plan.imageCount
        report.failures = plan.header.failures.count
        report.manifestWritten = written.replaced
        if !keepPartials {
            for partial in names { try folder.removeFile(partial) }
            report.partialsRemoved = names.count
        }
        try folder.synchronize()
        return report
    }

    /// The partial manifests at `paths`, each opened with its top level read and checked, in
    /// the order of `paths`. Reading a top level is a pass over the whole file (its images are
    /// counted, and fields may follow them), which is the first tenth of a merge's work: the
    /// files are read side by side, as many at a time as there are cores.
    static func readTopLevels(_ paths: [String]) -> [Result<ManifestStream, ManifestStream.Failure>] {
        let results = Mutex<[Result<ManifestStream, ManifestStream.Failure>?]>(
            Array(repeating: nil, count: paths.count))
        ParallelRunner.run(count: paths.count, width: Defaults.jobs) { index in
            let read = Result { () throws(ManifestStream.Failure) -> ManifestStream in
                let stream = try ManifestStream(path: paths[index], byteLimit: Int.max)
                if let first = stream.header.contentProblems().first {
                    throw .manifest(reason: "\(first.location): \(first.message)")
                }
                return stream
            }
            results.withLock { $0[index] = read }
            return true
        }
        return results.withLock { $0.map { $0! } }
    }

    /// Writes the manifest `name` of `header`, and its index, from the images `images` hands
    /// over in ascending order of SHA1 (`imageCount` of them, which sets the index's layout);
    /// `images` returns false when it stopped short, and then nothing is put in place and this
    /// returns nil. Else returns whether the manifest was replaced (it is left in place when it
    /// has the same bytes).
    static func write(
        _ header: Manifest, imageCount: Int, into folder: Directory, name: String,
        images: (_ body: (String, Manifest.ImageEntry) throws -> Void) throws -> Bool
    ) throws -> Bool? {
        let index = try ManifestIndexWriter(manifestFolder: folder, manifestName: name).stream(imageCount: imageCount)
        let file = try folder.streamedFile(name)
        let pieces = Manifest.JSONPieces(header: header)
        // Asked even when no image is expected: its checks (the failures' sources) must hold.
        var first = true
        let whole = try images { key, entry in
            if first { try file.append(pieces.opening) }
            try file.append(pieces.image(key, entry, first: first))
            try index.add(key, entry)
            first = false
        }
        // The temporary files go with the writers.
        guard whole else { return nil }
        try file.append(first ? pieces.withoutImages : pieces.closing)
        // The index in place before the manifest that names the same variants.
        _ = try index.finish()
        return try file.commit()
    }

    // MARK: - Reading

    /// A partial manifest as merging reads it: its name, its fields but the images, how many
    /// images it has, and a way to read them in its order.
    struct Partial {
        var name: String
        var header: Manifest
        var imageCount: Int
        var images: () throws -> ImageReader
    }

    /// The images of a partial manifest, one at a time in its order, read a batch at a time.
    /// With `prefetchingOn`, the next batch is read on that serial queue while this one is
    /// handed over, and a batch handed over is released there too, where its memory was
    /// allocated: reading (yajl's parse into the model) is half of a merge's work, and checking
    /// or writing the images the other half.
    final class ImageReader {
        typealias Batch = [(key: String, entry: Manifest.ImageEntry)]
        /// The reading function, handed to one thread at a time: the next batch is read only
        /// once the one before it has been taken.
        private struct Reading: @unchecked Sendable {
            let read: () throws -> Batch
        }

        /// A batch handed over, released on the queue that read it.
        private struct Done: @unchecked Sendable {
            let batch: Batch
        }

        private let readBatch: () throws -> Batch
        private let queue: DispatchQueue?
        private var prefetched: Background<Result<Batch, any Error>>?
        private var batch: Batch = []
        private var position = 0
        private var ended = false

        init(prefetchingOn queue: DispatchQueue? = nil, readBatch: @escaping () throws -> Batch) {
            self.readBatch = readBatch
            self.queue = queue
        }

        /// The next image; nil at the end.
        func next() throws -> (key: String, entry: Manifest.ImageEntry)? {
            if position == batch.count {
                if ended { return nil }
                if let queue, !batch.isEmpty {
                    let done = Done(batch: batch)
                    batch = []
                    queue.async { withExtendedLifetime(done) {} }
                }
                batch = try (prefetched?.value ?? Result { try readBatch() }).get()
                prefetched = nil
                position = 0
                if batch.isEmpty {
                    ended = true
                    return nil
                }
                if let queue {
                    let reading = Reading(read: readBatch)
                    prefetched = Background(on: queue) { Result { try reading.read() } }
                }
            }
            defer { position += 1 }
            return batch[position]
        }
    }

    /// What is wrong with a partial manifest, as reading it whole says it.
    static func message(_ error: any Error) -> String {
        switch error {
        case ManifestStream.Failure.file(let error): "\(error)"
        case ManifestStream.Failure.manifest(let reason): reason
        default: "\(error)"
        }
    }

    /// What the checks let through: the merged manifest without its images, and the shards
    /// whose images it has, in order.
    struct Plan {
        var header: Manifest
        var shards: [Partial]
        var imageCount: Int
        /// Whether every shard lists its images in ascending order of SHA1, as builds write them.
        var ordered: Bool
    }

    /// Hands over the images of every shard of `plan` in ascending order of SHA1: the shards'
    /// images interleaved as they are read when each shard's are in order, else gathered and
    /// sorted first.
    static func forEachImage(of plan: Plan, _ body: (String, Manifest.ImageEntry) throws -> Void) throws {
        var readers = try plan.shards.map { try $0.images() }
        if !plan.ordered {
            var images: [String: Manifest.ImageEntry] = [:]
            for reader in readers {
                while let (key, entry) = try reader.next() { images[key] = entry }
            }
            var sorted = images.sorted { $0.key < $1.key }.map { (key: $0.key, entry: $0.value) }
            readers = [
                ImageReader {
                    defer { sorted = [] }
                    return sorted
                }
            ]
        }
        var heads = try readers.map { try $0.next() }
        while let smallest = smallest(heads), let (key, entry) = heads[smallest] {
            try body(key, entry)
            heads[smallest] = try readers[smallest].next()
        }
    }

    /// Which of the shards' next images comes first in SHA1 order (the first shard's on a tie);
    /// nil when every shard has ended.
    static func smallest(_ heads: [(key: String, entry: Manifest.ImageEntry)?]) -> Int? {
        var smallest: Int?
        for (index, head) in heads.enumerated() {
            guard let head else { continue }
            if let current = smallest, heads[current]!.key <= head.key { continue }
            smallest = index
        }
        return smallest
    }

    // MARK: - Checks

    /// Merges partial manifests, each with the name it was read from (problems are reported
    /// against that name); returns the merged manifest only when there is no problem.
    package static func merge(
        _ partials: [(name: String, manifest: Manifest)], manifestPath: String = "manifest.json"
    ) -> (Manifest?, [MergeProblem]) {
        let read = partials.map { name, manifest in
            var header = manifest
            header.images = [:]
            let sorted = manifest.images.sorted { $0.key < $1.key }.map { (key: $0.key, entry: $0.value) }
            return Partial(name: name, header: header, imageCount: manifest.images.count) {
                var rest = sorted
                return ImageReader {
                    defer { rest = [] }
                    return rest
                }
            }
        }
        let (plan, problems) = check(read, manifestPath: manifestPath)
        guard let plan else { return (nil, problems) }
        var merged = plan.header
        // Images held whole are read without fail.
        try? forEachImage(of: plan) { key, entry in merged.images[key] = entry }
        return (merged, [])
    }

    /// Checks that partial manifests fit together; returns what to write only when there is no
    /// problem. A partial manifest whose images cannot be read is the only problem told.
    static func check(_ partials: [Partial], manifestPath: String) -> (Plan?, [MergeProblem]) {
        var (shards, problems) = checkTopLevels(partials, manifestPath: manifestPath)
        guard let reference = shards.first, problems.isEmpty else { return (nil, unreadable(partials) ?? problems) }

        // Every source exactly once; every image in its own shard only. An image in two shards
        // is in one that does not own it at least: when some image is, the shards are read
        // again keeping those images, to tell which shards hold them.
        var scan = scan(shards.map(\.partial), keeping: nil)
        if !scan.misplaced.isEmpty { scan = Self.scan(shards.map(\.partial), keeping: scan.misplaced) }
        if !scan.unreadable.isEmpty {
            return (
                nil,
                partials.compactMap { partial in
                    scan.unreadable[partial.name].map {
                        MergeProblem(path: partial.name, kind: .unreadable, message: $0)
                    }
                }
            )
        }
        problems = scan.problems
        var coverage = SourceCoverage()
        for path in scan.sourceShard.keys { coverage.add(path) }
        let covered = coverage.sortedList()
        if covered.count != reference.shard.sources || covered.sha1 != reference.shard.sourcesSHA1 {
            problems.append(
                MergeProblem(
                    path: reference.partial.name, kind: .uncovered,
                    message:
                        "the shards cover \(covered.count) sources but found \(reference.shard.sources); a shard's manifest is incomplete: build it again"
                ))
        }
        guard problems.isEmpty else { return (nil, problems) }
        let header = mergedHeader(
            generator: reference.partial.header.generator, partials: partials, failures: scan.failures,
            failureSHA1: scan.failureSHA1)
        let imageCount = shards.reduce(0) { $0 + $1.partial.imageCount }
        return (Plan(header: header, shards: shards.map(\.partial), imageCount: imageCount, ordered: scan.ordered), [])
    }

    /// The merged manifest without its images: the shards' generator, their recipes and the
    /// failures they list.
    static func mergedHeader(
        generator: Manifest.Generator, partials: [Partial], failures: [String: String],
        failureSHA1: [String: String]
    ) -> Manifest {
        // Every shard ran the same recipes (checked): their descriptions are one set.
        var recipes: [String: [String]] = [:]
        for partial in partials { recipes.merge(partial.header.recipes ?? [:]) { first, _ in first } }
        return Manifest(
            generator: generator, failures: failures, failureSHA1: failureSHA1.isEmpty ? nil : failureSHA1,
            recipes: recipes.isEmpty ? nil : recipes)
    }

    /// The checks of the partial manifests' top levels: every shard once, all of one split,
    /// on the same sources with the same pipeline and software. Returns the shards in order of
    /// their index, and the problems found.
    static func checkTopLevels(
        _ partials: [Partial], manifestPath: String
    ) -> (shards: [(partial: Partial, shard: Manifest.Shard)], problems: [MergeProblem]) {
        var problems: [MergeProblem] = []
        var shards: [(partial: Partial, shard: Manifest.Shard)] = []
        for partial in partials {
            if let shard = partial.header.shard {
                shards.append((partial, shard))
            } else {
                problems.append(
                    MergeProblem(
                        path: partial.name, kind: .notPartial,
                        message: "a whole build's manifest, not one shard's (it has no \"shard\")"))
            }
        }
        shards.sort {
            ($0.shard.count, $0.shard.index, $0.partial.name) < ($1.shard.count, $1.shard.index, $1.partial.name)
        }
        guard let reference = shards.first else { return (shards, problems) }

        // Every shard once, all from the same split.
        let counts = Set(shards.map(\.shard.count))
        if counts.count > 1 {
            for (partial, shard) in shards where shard.count != reference.shard.count {
                problems.append(
                    MergeProblem(
                        path: partial.name, kind: .differentSplit,
                        message:
                            "shard \(shard.index) of \(shard.count), but \(reference.partial.name) is one of \(reference.shard.count): these are partial manifests of two builds split differently; delete those of the older one"

                    ))
            }
            return (shards, problems)
        }
        let count = reference.shard.count
        let byIndex = Dictionary(grouping: shards, by: \.shard.index)
        for index in 1...count {
            let found = byIndex[index] ?? []
            if found.isEmpty {
                problems.append(
                    MergeProblem(
                        path: Shard.partialManifestName(for: manifestPath, index: index, count: count),
                        kind: .missingShard,
                        message: "shard \(index) of \(count) is missing; run ladder build --shard \(index)/\(count)"))
            }
            for duplicate in found.dropFirst() {
                problems.append(
                    MergeProblem(
                        path: duplicate.partial.name, kind: .duplicateShard,
                        message: "shard \(index) of \(count) again (also \(found[0].partial.name))"))
            }
        }

        // The same sources, pipeline and software.
        let generator = reference.partial.header.generator
        for (partial, shard) in shards.dropFirst() {
            if shard.sources != reference.shard.sources || shard.sourcesSHA1 != reference.shard.sourcesSHA1 {
                problems.append(
                    MergeProblem(
                        path: partial.name, kind: .differentSources,
                        message:
                            "shard \(shard.index)/\(count) found \(shard.sources) sources, shard \(reference.shard.index)/\(count) \(reference.shard.sources)\(shard.sources == reference.shard.sources ? " with other names" : ""): the shards ran on different source trees; run every shard on the same commit"
                    ))
            }
            let variants = Set(shard.recipes.keys).union(reference.shard.recipes.keys).sorted()
            let differing = variants.filter { shard.recipes[$0] != reference.shard.recipes[$0] }
            if !differing.isEmpty {
                problems.append(
                    MergeProblem(
                        path: partial.name, kind: .differentPipeline,
                        message:
                            "shard \(shard.index)/\(count) made \(differing.joined(separator: ", ")) with other recipes than shard \(reference.shard.index)/\(count): the shards ran with different pipelines"
                    ))
            }
            if partial.header.generator != generator {
                problems.append(
                    MergeProblem(
                        path: partial.name, kind: .differentGenerator,
                        message:
                            "made by \(Self.describe(partial.header.generator)), shard \(reference.shard.index)/\(count) by \(Self.describe(generator)): run every shard with the same ladder"
                    ))
            }
        }
        return (shards, problems)
    }

    /// What one read of the shards' images found.
    private struct Scan {
        var problems: [MergeProblem] = []
        /// Why a partial manifest's images cannot be read, by its name.
        var unreadable: [String: String] = [:]
        /// The images found in a shard that does not own them.
        var misplaced: Set<String> = []
        /// The shard of each source, by the path's bytes: names that differ only by Unicode
        /// normalization are two sources.
        var sourceShard: [[UInt8]: Int] = [:]
        var failures: [String: String] = [:]
        var failureSHA1: [String: String] = [:]
        /// Whether every shard lists its images in ascending order.
        var ordered = true
    }

    /// Reads the images of `shards` (in shard order, all of one split), checking each as
    /// reading a manifest does, that each is in the shard that owns it, and which sources they
    /// cover; the images in `keeping` are kept, so that one met again is told as in two shards.
    private static func scan(_ shards: [Partial], keeping: Set<String>?) -> Scan {
        var scan = Scan()
        var images: [String: Manifest.ImageEntry] = [:]
        var imageShard: [String: Int] = [:]
        for partial in shards {
            let name = partial.name
            guard let shard = partial.header.shard, let owner = Shard(index: shard.index, count: shard.count) else {
                continue
            }
            let count = shard.count
            func cover(_ source: String) {
                if let other = scan.sourceShard[Array(source.utf8)] {
                    scan.problems.append(
                        MergeProblem(
                            path: name, kind: .overlap,
                            message: "\(source) is in shard \(other)/\(count) and in shard \(shard.index)/\(count)"))
                } else {
                    scan.sourceShard[Array(source.utf8)] = shard.index
                }
            }
            do {
                let reader = try partial.images()
                var previous: String?
                while let (sha1, entry) = try reader.next() {
                    try validate(sha1, entry, in: partial)
                    if let previous, previous >= sha1 { scan.ordered = false }
                    previous = sha1
                    if !owner.owns(sha1: sha1) {
                        scan.problems.append(
                            MergeProblem(
                                path: name, kind: .wrongShard,
                                message: "image \(sha1) belongs to another shard than \(shard.index)/\(count)"))
                        scan.misplaced.insert(sha1)
                    }
                    if let other = imageShard[sha1] {
                        let agreement = images[sha1].map { Self.sameVariants($0, entry) } ?? false
                        scan.problems.append(
                            MergeProblem(
                                path: name, kind: .overlap,
                                message:
                                    "image \(sha1) is in shard \(other)/\(count) and in shard \(shard.index)/\(count)\(agreement ? "" : ", and they disagree about its variants")"
                            ))
                    } else if keeping?.contains(sha1) ?? false {
                        images[sha1] = entry
                        imageShard[sha1] = shard.index
                    }
                    for source in entry.sources { cover(source) }
                }
            } catch {
                scan.unreadable[name] = message(error)
            }
            for source in partial.header.failures.keys.sorted() {
                cover(source)
                scan.failures[source] = partial.header.failures[source]
                if let sha1 = partial.header.failureSHA1?[source] { scan.failureSHA1[source] = sha1 }
            }
        }
        return scan
    }

    /// The problems of partial manifests whose images cannot be read, in their order; nil when
    /// every one can.
    private static func unreadable(_ partials: [Partial]) -> [MergeProblem]? {
        var problems: [MergeProblem] = []
        for partial in partials {
            do {
                let reader = try partial.images()
                while let (sha1, entry) = try reader.next() { try validate(sha1, entry, in: partial) }
            } catch {
                problems.append(MergeProblem(path: partial.name, kind: .unreadable, message: message(error)))
            }
        }
        return problems.isEmpty ? nil : problems
    }

    /// Throws the problem reading the manifest whole finds with this image's key and paths.
    static func validate(_ sha1: String, _ entry: Manifest.ImageEntry, in partial: Partial) throws {
        if let first = Manifest.contentProblems(sha1, entry).first {
            throw ManifestStream.Failure.manifest(reason: "\(first.location): \(first.message)")
        }
    }

    private static func sameVariants(_ first: Manifest.ImageEntry, _ second: Manifest.ImageEntry) -> Bool {
        var first = first
        var second = second
        first.sources = []
        second.sources = []
        return first == second
    }

    private static func describe(_ generator: Manifest.Generator) -> String {
        "ladder \(generator.ladder) (libvips \(generator.libvips), libjpeg-turbo \(generator.libjpeg))"
    }
}

/// What `ladder merge` did, or why it did not.
package struct MergeReport: Sendable, Equatable {
    package var manifestPath: String
    /// The partial manifests found.
    package var partials: [String]
    package var problems: [MergeProblem] = []
    package var shards = 0
    package var sources = 0
    package var images = 0
    package var failures = 0
    package var manifestWritten = false
    package var partialsRemoved = 0

    package var ok: Bool { problems.isEmpty }
}

/// Why partial manifests cannot be merged: which file, and what is wrong.
package struct MergeProblem: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case noPartials = "no-partials"
        case unreadable
        case notPartial = "not-partial"
        case differentSplit = "different-split"
        case missingShard = "missing-shard"
        case duplicateShard = "duplicate-shard"
        case differentSources = "different-sources"
        case differentPipeline = "different-pipeline"
        case differentGenerator = "different-generator"
        case wrongShard = "wrong-shard"
        case overlap
        case uncovered
    }

    package var path: String
    package var kind: Kind
    package var message: String
}
