import Foundation
import LadderImaging
import LadderManifest
import Synchronization

/// Proves, without trusting the build, that what the manifest describes is what is on disk:
/// every variant file complete and untampered, shaped and scanned as its recipe says, free of
/// the metadata the policy removes; every source built; nothing unknown in the output folder.
/// Every problem is reported, not just the first.
///
/// It runs in phases, like the build (docs/VERIFY.md): the manifest is read while the sources
/// are walked and hashed (`ManifestPhase`, `SourcePhase`); then each image's files are checked
/// (`ImagePhase`), its full-size variant replayed (`ReplayPhase`) and its ladder held to the
/// budgets (`BudgetPhase`), while the index, the output folder's orphans (`OrphanPhase`) and the
/// sources left to hash share the threads; last, the sources are held to the manifest and each
/// image's recorded facts to its source (`SourceFactsCheck`).
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
        /// Reuse replay results of unchanged files from the state folder, and store new ones.
        package var cachesReplays: Bool

        package init(
            replay: Bool = false, profiles: [String] = [], chunkBytes: Int? = nil, jobs: Int = Defaults.jobs,
            frames: (any FrameCollecting)? = nil, deep: Bool = false, cachesReplays: Bool = true
        ) {
            self.replay = replay
            self.profiles = profiles
            self.chunkBytes = chunkBytes
            self.jobs = jobs
            self.frames = frames
            self.deep = deep
            self.cachesReplays = cachesReplays
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
    /// time is what a CI job waits for, so every part runs on all `jobs` threads.
    private func check(_ report: inout VerificationReport) -> [VerificationProblem] {
        let manifestPhase = ManifestPhase(configuration: configuration, manifestLabel: manifestLabel)
        let sourcePhase = SourcePhase(configuration: configuration)
        let (read, walked) = readWhileHashing(manifestPhase, sourcePhase)
        let manifest: Manifest
        switch read {
        case .done(let decoded)?: manifest = decoded
        case .stopped(let problem)?: return [problem]
        case nil: return []
        }
        report.images = manifest.images.count
        report.failures = manifest.failures.count
        report.variants = manifest.images.values.reduce(0) { $0 + $1.variants.count }
        report.sourceNames = manifest.images.compactMapValues { $0.sources.sorted().first }
        let unsafe = manifestPhase.unsafePaths(manifest)
        var problems = unsafe.problems

        let output: Directory
        do {
            output = try Directory.open(configuration.outputDirectory)
        } catch {
            let kind: ProblemKind = error.code == ENOENT ? .missing : .unreadable
            return problems + [VerificationProblem(path: outputLabel, kind: kind, message: error.description)]
        }
        var digests: SourceDigests?
        if case .done(let walked)? = walked { digests = walked }
        let checked = checkImages(manifest, unsafe: unsafe.keys, output: output, digests: digests)
        problems += checked.problems
        report.replays = checked.replays
        switch walked {
        case .done(let digests)?:
            problems += sourcePhase.problems(manifest, digests)
            problems += checkFacts(manifest, digests, images: checked.facts)
        case .stopped(let problem)?: problems.append(problem)
        case nil: break
        }
        return problems
    }

    /// The manifest phase's read, with the source phase's walk and hashing alongside: neither
    /// needs the other. The hashing stops once the manifest is read; the images' threads take
    /// up what is left.
    private func readWhileHashing(
        _ manifestPhase: ManifestPhase, _ sourcePhase: SourcePhase
    ) -> (Step<Manifest>?, Step<SourceDigests>?) {
        let read = Mutex<Step<Manifest>?>(nil)
        let walked = Mutex<Step<SourceDigests>?>(nil)
        let manifestDone = Atomic<Bool>(false)
        ParallelRunner.run(count: 2, width: options.jobs) { index in
            if index == 0 {
                let manifest = manifestPhase.read()
                read.withLock { $0 = manifest }
                manifestDone.store(true, ordering: .releasing)
            } else {
                let sources = sourcePhase.walk()
                walked.withLock { $0 = sources }
                guard case .done(let digests) = sources else { return true }
                while !manifestDone.load(ordering: .acquiring) && digests.hashNext() {}
            }
            return true
        }
        return (read.withLock { $0 }, walked.withLock { $0 })
    }

    /// The image, replay and budget phases for every image, with the index check, the orphan
    /// phase and the sources `digests` has not hashed yet, on `jobs` threads; the single items
    /// first, so that neither is left running alone at the end.
    private func checkImages(
        _ manifest: Manifest, unsafe: Set<String>, output: Directory, digests: SourceDigests?
    ) -> (problems: [VerificationProblem], replays: [ImageReplay], facts: [String: SourceFactsCheck.Image]) {
        let cache =
            options.cachesReplays && options.frames == nil && options.replays(configuration)
            ? ReplayCache(stateFolder: StateFolder.path(of: configuration)) : nil
        let images = ImagePhase(verifier: self, unsafe: unsafe, output: output)
        let replays = ReplayPhase(
            configuration: configuration, outputLabel: outputLabel, options: options, cache: cache)
        let budgets = BudgetPhase(configuration: configuration, profiles: options.profiles)
        let keys = manifest.images.keys.sorted()
        let results = Mutex<[(problems: [VerificationProblem], replay: ImageReplay?)]>([])
        let facts = Mutex<[String: SourceFactsCheck.Image]>([:])
        let firstImage = 2 + (digests?.untaken ?? 0)
        ParallelRunner.run(count: firstImage + keys.count, width: options.jobs) { index in
            switch index {
            case 0:
                let problems = ManifestPhase(configuration: self.configuration, manifestLabel: self.manifestLabel)
                    .indexProblems(manifest)
                results.withLock { $0.append((problems, nil)) }
            case 1:
                let problems = OrphanPhase(configuration: self.configuration, outputLabel: self.outputLabel)
                    .problems(manifest, output: output)
                results.withLock { $0.append((problems, nil)) }
            case 2..<firstImage:
                _ = digests?.hashNext()
            default:
                let key = keys[index - firstImage]
                guard let entry = manifest.images[key] else { return true }
                let found = images.check(key, entry, manifest: manifest)
                var problems = found.problems
                var replay: ImageReplay?
                // An image with a file that must not be decoded (over its box or the limits) is
                // not replayed: its problem is already reported, and a replay would decode it.
                if self.options.replays(self.configuration), found.decodable,
                    let replayed = replays.replay(key, rungs: found.rungs)
                {
                    let source = entry.sources.min()
                    let (timelines, over) = budgets.check(
                        key, source: source, label: replayed.label, rungs: replayed.rungs)
                    problems += replayed.problems + over
                    if self.options.replay || !timelines.isEmpty {
                        replay = ImageReplay(
                            image: key, source: source, variant: replayed.variant, report: replayed.report,
                            timelines: timelines)
                    }
                }
                results.withLock { $0.append((problems, replay)) }
                facts.withLock { $0[key] = found.facts }
            }
            return true
        }
        cache?.removeUnused()
        let all = results.withLock { $0 }
        return (
            all.flatMap(\.problems), all.compactMap(\.replay).sorted { $0.image < $1.image }, facts.withLock { $0 }
        )
    }

    /// Each image's recorded facts held to its source (`SourceFactsCheck`), on `jobs` threads:
    /// some sources are read again, and with `deep` some decoded.
    private func checkFacts(
        _ manifest: Manifest, _ digests: SourceDigests, images: [String: SourceFactsCheck.Image]
    ) -> [VerificationProblem] {
        let sources = SourcePhase(configuration: configuration).representatives(manifest, digests)
        let keys = sources.keys.sorted()
        let check = SourceFactsCheck(configuration: configuration, manifestLabel: manifestLabel, deep: options.deep)
        let found = Mutex<[VerificationProblem]>([])
        ParallelRunner.run(count: keys.count, width: options.jobs) { index in
            let key = keys[index]
            guard let entry = manifest.images[key], let (file, header) = sources[key] else { return true }
            let problems = check.problems(key, entry, image: images[key] ?? .init(), source: file, header: header)
            found.withLock { $0 += problems }
            return true
        }
        return found.withLock { $0 }
    }
}
