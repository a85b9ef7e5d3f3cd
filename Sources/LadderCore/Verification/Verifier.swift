import Foundation
import LadderImaging
import LadderManifest
import Synchronization

/// Proves, without trusting the build, that what the manifest describes is what is on disk:
/// every variant file complete and untampered, shaped and scanned as its recipe says, free of
/// the metadata the policy removes; every source built; nothing unknown in the output folder.
/// Every problem is reported, not just the first.
///
/// It runs in phases, like the build (docs/VERIFY.md): the manifest's top level is read while
/// the sources are walked and hashed (`ManifestPhase`, `SourcePhase`); then the manifest's images
/// stream past a batch at a time (`ManifestStream`), and each image's files are checked
/// (`ImagePhase`), its full-size variant replayed (`ReplayPhase`), its ladder held to the budgets
/// (`BudgetPhase`) and its recorded facts to its source (`SourceFactsCheck`), all in
/// `ImageChecks`, while the index files are held to the images as they pass
/// (`ManifestIndexCheck`); last, the output folder's orphans (`OrphanPhase`) and the sources held
/// to the manifest.
package struct Verifier: Sendable {
    package struct Options: Sendable {
        /// Also replay the progressive loading of every progressive variant.
        package var replay: Bool
        /// Network profiles to simulate each image's ladder over (budgets add theirs).
        package var profiles: [String]
        /// Overrides the configuration's chunk size.
        package var chunkBytes: Int?
        package var jobs: Int
        /// Receives each replayed image's pictures, for galleries (replays are then never
        /// taken from the cache).
        package var frames: (any FrameCollecting)?
        /// Decode every variant, even those whose SHA-256 matches the manifest, and the sources
        /// with an alpha channel.
        package var deep: Bool
        /// Reuse what earlier runs found of unchanged files (replays, placeholder checks that
        /// held) from the state folder, and keep what this run finds.
        package var reusesResults: Bool
        /// Report each image's first source (`VerificationReport.sourceNames`, which JUnit
        /// output names its test cases after); a million images' take about 150 MB.
        package var namesImages: Bool

        package init(
            replay: Bool = false, profiles: [String] = [], chunkBytes: Int? = nil, jobs: Int = Defaults.jobs,
            frames: (any FrameCollecting)? = nil, deep: Bool = false, reusesResults: Bool = true,
            namesImages: Bool = true
        ) {
            self.replay = replay
            self.profiles = profiles
            self.chunkBytes = chunkBytes
            self.jobs = jobs
            self.frames = frames
            self.deep = deep
            self.reusesResults = reusesResults
            self.namesImages = namesImages
        }

        /// True when images are replayed: asked for, or needed by a profile or a budget.
        package func replays(_ configuration: PipelineConfiguration) -> Bool {
            replay || !configuration.replay.budgets.isEmpty || !profiles.isEmpty
        }
    }

    package let configuration: PipelineConfiguration
    package let options: Options

    package init(configuration: PipelineConfiguration, options: Options = Options()) {
        self.configuration = configuration
        self.options = options
        outputLabel = FilePath.normalize(configuration.output)
        manifestLabel = FilePath.normalize(configuration.manifest)
    }

    /// The output folder as the user wrote it, for naming files in messages.
    let outputLabel: String

    let manifestLabel: String

    package func run() -> VerificationReport {
        // Replays allocate and free planes of megabytes by the dozen: reuse their pages.
        if options.replays(configuration) { Allocator.keepFreedPictures() }
        var report = VerificationReport(images: 0, variants: 0, problems: [], replays: [], sourceNames: [:])
        let problems = check(&report)
        report.problems = problems.sorted { ($0.path, $0.kind, $0.message) < ($1.path, $1.kind, $1.message) }
        return report
    }

    /// A step's value, or the problem that stops it.
    enum Step<Value: Sendable>: Sendable {
        case done(Value)
        case stopped(VerificationProblem)
    }

    /// Runs the phases, filling in `report` as it goes, and returns the problems found. Wall
    /// time is what a CI job waits for, so every part runs on all `jobs` threads; memory stays
    /// at a batch of images, whatever their number, besides what the whole-catalogue checks keep
    /// of each (`ImageChecks`).
    private func check(_ report: inout VerificationReport) -> [VerificationProblem] {
        let manifestPhase = ManifestPhase(configuration: configuration, manifestLabel: manifestLabel)
        let sourcePhase = SourcePhase(configuration: configuration)
        let (read, walked) = readWhileHashing(manifestPhase, sourcePhase)
        let stream: ManifestStream
        switch read {
        case .done(let opened)?: stream = opened
        case .stopped(let problem)?: return [problem]
        case nil: return []
        }
        let header = stream.header
        var problems = manifestPhase.unsafePaths(header).problems

        let output: Directory
        do {
            output = try Directory.open(configuration.outputDirectory)
        } catch {
            let kind: ProblemKind = error.code == ENOENT ? .missing : .unreadable
            return problems + [VerificationProblem(path: outputLabel, kind: kind, message: error.description)]
        }
        var digests: SourceDigests?
        if case .done(let walked)? = walked { digests = walked }
        let state = StateFolder.path(of: configuration)
        let cache =
            options.reusesResults && options.frames == nil && options.replays(configuration)
            ? ReplayCache(stateFolder: state) : nil
        // --deep decodes every file, whatever an earlier run found.
        let verdicts = options.reusesResults && !options.deep ? PlaceholderVerdicts(stateFolder: state) : nil
        let checks = ImageChecks(
            verifier: self, header: header, output: output, digests: digests, cache: cache, verdicts: verdicts)
        let indexProblems: [VerificationProblem]
        switch checkImages(stream, checks) {
        case .done(let found): indexProblems = found
        case .stopped(let problem): return [problem]
        }
        cache?.removeUnused()
        verdicts?.save()
        let found = checks.found.withLock { $0 }
        report.images = stream.imageCount
        report.failures = header.failures.count
        report.variants = found.variants
        report.sourceNames = found.sourceNames
        report.replays = found.replays.sorted { $0.image < $1.image }
        problems += found.problems
        problems += indexProblems
        problems += OrphanPhase(configuration: configuration, outputLabel: outputLabel)
            .problems(known: found.known, imageCount: stream.imageCount, output: output, jobs: options.jobs)
        switch walked {
        case .done(let digests)?: problems += sourcePhase.problems(header, listed: found.listed, digests)
        case .stopped(let problem)?: problems.append(problem)
        case nil: break
        }
        return problems
    }

    /// The manifest phase's first read (its top level), with the source phase's walk and
    /// hashing alongside: neither needs the other. Once the manifest's top level is read, its
    /// thread waits for the walk and hashes too, so that every source is hashed, on every
    /// thread, before the images are checked.
    private func readWhileHashing(
        _ manifestPhase: ManifestPhase, _ sourcePhase: SourcePhase
    ) -> (Step<ManifestStream>?, Step<SourceDigests>?) {
        let read = Mutex<Step<ManifestStream>?>(nil)
        let walked = Mutex<Step<SourceDigests>?>(nil)
        let walkEnded = DispatchSemaphore(value: 0)
        // The walk is item 0: on one thread it runs first, so the read never waits for it.
        ParallelRunner.run(count: 2, width: options.jobs) { index in
            if index == 0 {
                let sources = sourcePhase.walk()
                walked.withLock { $0 = sources }
                walkEnded.signal()
            } else {
                let manifest = manifestPhase.read()
                read.withLock { $0 = manifest }
                walkEnded.wait()
            }
            if case .done(let digests)? = walked.withLock({ $0 }) {
                while digests.hashNext() {}
            }
            return true
        }
        return (read.withLock { $0 }, walked.withLock { $0 })
    }

    /// Images read from the manifest at a time: enough to keep every thread busy between reads.
    static let imageBatch = 256

    /// The checks of every image (`ImageChecks`), a batch at a time on `jobs` threads, while one
    /// of them reads the next batch and hands it, in the manifest's order, to the index check,
    /// whose problems it returns. Stops with the manifest's problem when an image cannot be read.
    private func checkImages(_ stream: ManifestStream, _ checks: ImageChecks) -> Step<[VerificationProblem]> {
        let phase = ManifestPhase(configuration: configuration, manifestLabel: manifestLabel)
        let images: ManifestStream.Images
        do {
            images = try stream.images()
        } catch {
            return .stopped(phase.problem(error))
        }
        let index = ManifestIndexCheck(
            configuration: configuration, manifestLabel: manifestLabel, header: stream.header,
            imageCount: stream.imageCount)
        let reader = Mutex(ImageReader(images: images, index: index, phase: phase))
        var batch = reader.withLock { $0.next() }
        while case .done(let current) = batch, !current.isEmpty {
            let next = Mutex<Step<[(key: String, entry: Manifest.ImageEntry)]>?>(nil)
            ParallelRunner.run(count: 1 + current.count, width: options.jobs) { item in
                if item == 0 {
                    next.withLock { $0 = reader.withLock { $0.next() } }
                } else {
                    checks.check(current[item - 1].key, current[item - 1].entry)
                }
                return true
            }
            batch = next.withLock { $0 } ?? .done([])
        }
        if case .stopped(let failure) = batch { return .stopped(failure) }
        let path = configuration.manifestPath
        return .done(
            reader.withLock { $0.index.finish { try? Manifest(shapeOf: Data(Directory.readFile(atPath: path))) } })
    }

    /// Reads the next batch of images and hands them to the index check.
    struct ImageReader: ~Copyable {
        let images: ManifestStream.Images
        let index: ManifestIndexCheck
        let phase: ManifestPhase

        func next() -> Step<[(key: String, entry: Manifest.ImageEntry)]> {
            do {
                let batch = try images.next(atLeast: Verifier.imageBatch)
                for (key, entry) in batch { index.add(key, entry) }
                return .done(batch)
            } catch {
                return .stopped(phase.problem(error))
            }
        }
    }
}
