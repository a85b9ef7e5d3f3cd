import Foundation
import LadderImaging
import LadderManifest
import Synchronization

/// Proves, without trusting the build, that what the manifest describes is what is on disk:
/// every variant file complete and untampered, shaped and scanned as its recipe says, free of
/// the metadata the policy removes; every source built; nothing unknown in the output folder.
/// Every problem is reported, not just the first.
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
        /// Decode every variant, even those whose SHA-256 matches the manifest.
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

    /// Runs every check, filling in `report` as it goes, and returns the problems found.
    ///
    /// Wall time is what a CI job waits for, so every part runs on all `jobs` threads: the
    /// sources are walked and hashed while the manifest's JSON is decoded (neither needs the
    /// other), then the index check, the orphan walk, the sources left to hash and the images
    /// are one list of work items that the threads share.
    private func check(_ report: inout VerificationReport) -> [VerificationProblem] {
        var problems: [VerificationProblem] = []

        let read = Mutex<Step<Manifest>?>(nil)
        let walked = Mutex<Step<SourceDigests>?>(nil)
        let manifestDone = Atomic<Bool>(false)
        ParallelRunner.run(count: 2, width: options.jobs) { index in
            if index == 0 {
                let manifest = self.readManifest()
                read.withLock { $0 = manifest }
                manifestDone.store(true, ordering: .releasing)
            } else {
                let sources = self.walkSources()
                walked.withLock { $0 = sources }
                guard case .done(let digests) = sources else { return true }
                while !manifestDone.load(ordering: .acquiring) && digests.hashNext() {}
            }
            return true
        }
        let manifest: Manifest
        switch read.withLock({ $0 }) {
        case .done(let decoded)?: manifest = decoded
        case .stopped(let problem)?: return [problem]
        case nil: return problems
        }
        report.images = manifest.images.count
        report.failures = manifest.failures.count

        report.variants = manifest.images.values.reduce(0) { $0 + $1.variants.count }
        report.sourceNames = manifest.images.compactMapValues { $0.sources.sorted().first }

        var unsafe: Set<String> = []
        for problem in manifest.contentProblems() {
            problems.append(
                VerificationProblem(
                    path: manifestLabel, kind: "unsafe-path", message: "\(problem.location): \(problem.message)",
                    image: problem.image))
            if let image = problem.image { unsafe.insert(image + "/" + (problem.variant ?? "")) }
        }

        let output: Directory
        do {
            output = try Directory.open(configuration.outputDirectory)
        } catch {
            problems.append(
                VerificationProblem(
                    path: outputLabel, kind: error.code == ENOENT ? "missing" : Self.unreadable,
                    message: error.description))
            return problems
        }

        let cache =
            options.cachesReplays && options.frames == nil && options.replays(configuration)
            ? ReplayCache(stateFolder: StateFolder.path(of: configuration)) : nil
        let sources = walked.withLock { $0 }
        var digests: SourceDigests?
        if case .done(let walked)? = sources { digests = walked }
        let checked = checkAll(
            manifest, unsafe: unsafe, output: output, cache: cache, digests: digests)
        cache?.removeUnused()
        problems += checked.problems
        report.replays = checked.replays
        switch sources {
        case .done(let digests)?: problems += checkSources(manifest, digests)
        case .stopped(let problem)?: problems.append(problem)
        case nil: break
        }
        return problems
    }

    /// A step's value, or the problem that stops it.
    enum Step<Value: Sendable>: Sendable {
        case done(Value)
        case stopped(VerificationProblem)
    }

    /// The manifest, read and decoded, or the problem that stops verify.
    private func readManifest() -> Step<Manifest> {
        let data: [UInt8]
        do {
            data = try Directory.readFile(atPath: configuration.manifestPath, limit: Self.manifestByteLimit)
        } catch {
            let missing = error.code == ENOENT
            return .stopped(
                VerificationProblem(
                    path: manifestLabel, kind: missing ? "manifest-missing" : Self.unreadable,
                    message: missing ? "no manifest; run ladder build first" : error.description))
        }
        do {
            return .done(try Manifest(shapeOf: Data(data)))
        } catch {
            return .stopped(VerificationProblem(path: manifestLabel, kind: "manifest-invalid", message: error.reason))
        }
    }

    // MARK: - Images

    /// Checks the index, the output folder's orphans, the sources `digests` has not hashed yet,
    /// and every image, on `jobs` threads; the two single items first, so that neither is left
    /// running alone at the end.
    private func checkAll(
        _ manifest: Manifest, unsafe: Set<String>, output: Directory, cache: ReplayCache?, digests: SourceDigests?
    ) -> (problems: [VerificationProblem], replays: [ImageReplay]) {
        let keys = manifest.images.keys.sorted()
        let results = Mutex<[(problems: [VerificationProblem], replay: ImageReplay?)]>([])
        let context = ImageContext(verifier: self, unsafe: unsafe, output: output, cache: cache)
        let untaken = digests?.untaken ?? 0
        let firstImage = 2 + untaken
        ParallelRunner.run(count: firstImage + keys.count, width: options.jobs) { index in
            switch index {
            case 0:
                let problems = ManifestIndexCheck(configuration: self.configuration, manifestLabel: self.manifestLabel)
                    .problems(manifest)
                results.withLock { $0.append((problems, nil)) }
            case 1:
                let problems = self.checkOrphans(manifest, output: output)
                results.withLock { $0.append((problems, nil)) }
            case 2..<firstImage:
                _ = digests?.hashNext()
            default:
                let key = keys[index - firstImage]
                guard let entry = manifest.images[key] else { return true }
                let result = self.checkImage(key, entry, context: context)
                results.withLock { $0.append(result) }
            }
            return true
        }
        let all = results.withLock { $0 }
        return (all.flatMap(\.problems), all.compactMap(\.replay).sorted { $0.image < $1.image })
    }

    /// What every image's check shares, computed once.
    struct ImageContext: Sendable {
        let unsafe: Set<String>
        let prefix: String
        let recipes: [String: VariantRecipe]
        let recipeNames: [String]
        let folders: OutputFolders
        let cache: ReplayCache?

        init(verifier: Verifier, unsafe: Set<String>, output: Directory, cache: ReplayCache?) {
            self.unsafe = unsafe
            prefix = verifier.configuration.outputPrefixInManifest
            recipes = Dictionary(uniqueKeysWithValues: verifier.configuration.variants.map { ($0.name, $0) })
            recipeNames = recipes.keys.sorted()
            folders = OutputFolders(output)
            self.cache = cache
        }
    }

    private func checkImage(
        _ key: String, _ entry: Manifest.ImageEntry, context: ImageContext
    ) -> (problems: [VerificationProblem], replay: ImageReplay?) {
        var problems: [VerificationProblem] = []
        let source = entry.sources.min()
        let (prefix, recipes) = (context.prefix, context.recipes)
        for name in context.recipeNames where entry.variants[name] == nil {
            problems.append(
                VerificationProblem(
                    path: manifestLabel, kind: "missing-variant",
                    message: "image \(source ?? key) has no \(name) variant; run ladder build", image: key))
        }
        var rungs: [Rung] = []
        var allDecodable = true
        for name in entry.variants.keys.sorted() {
            guard let variant = entry.variants[name],
                context.unsafe.isEmpty || !context.unsafe.contains(key + "/" + name)
            else { continue }
            let relative = prefix.isEmpty ? variant.path : FilePath.relative(variant.path, to: prefix)
            let label = relative.map { outputLabel + "/" + $0 } ?? variant.path
            func problem(_ kind: String, _ message: String) {
                problems.append(VerificationProblem(path: label, kind: kind, message: message, image: key))
            }
            guard let relative else {
                problem("unsafe-path", "the path lies outside the output folder \(outputLabel)")
                continue
            }
            guard let recipe = recipes[name] else {
                problem("unknown-variant", "pipeline.json has no variant \(name)")
                continue
            }
            let bytes: [UInt8]
            do {
                // Never more than the build would read: a variant replaced by a huge file is
                // refused by its size before it is read.
                let (folder, name) = try context.folders.folder(of: relative)
                bytes = try folder.readFile(name, limit: configuration.limits.maxFileBytes)
            } catch {
                allDecodable = false
                switch error.code {
                case ENOENT: problem("missing", "the file does not exist")
                case 0 where error.reason.contains("over the limit"):
                    problem(
                        "over-limits",
                        "\(error.reason) (limits.maxFileBytes); not read, the manifest says \(variant.bytes) bytes")
                case 0: problem("missing", error.reason)
                default: problem(Self.unreadable, error.reason)
                }
                continue
            }
            var check = VariantCheck(
                recipe: recipe, entry: variant, bytes: bytes, keep: configuration.metadata.keep, label: label,
                image: key)
            check.limits = configuration.limits
            check.deep = options.deep
            let outcome = check.check()
            problems += outcome.problems
            problems += ScanEndsCheck(
                entry: variant, bytes: bytes, structure: outcome.structure, label: label, image: key
            ).problems()
            allDecodable = allDecodable && outcome.decodable
            rungs.append(Rung(recipe: recipe, entry: variant, bytes: bytes, sha256: outcome.sha256))
            problems += SiblingCheck(
                recipe: recipe, rung: variant, image: key, limits: configuration.limits, deep: options.deep,
                folders: context.folders, prefix: prefix, outputLabel: outputLabel
            ).problems()
        }
        // Files that must not be decoded are not: the placeholder is then checked by shape only.
        let smallest = rungs.min { $0.entry.width * $0.entry.height < $1.entry.width * $1.entry.height }
        problems += PlaceholderCheck(
            entry: entry,
            thumbnail: allDecodable ? smallest.map { (outputLabel + "/" + $0.entry.path, $0.bytes) } : nil,
            manifestLabel: manifestLabel, image: key
        ).problems()
        guard options.replays(configuration) else { return (problems, nil) }
        // An image with a file that must not be decoded (over its box or the limits) is not
        // replayed: its problem is already reported, and a replay would decode it.
        guard allDecodable else { return (problems, nil) }
        return replayLadder(key, source: source, rungs: rungs, problems: problems, cache: context.cache)
    }

    /// One variant file of an image, as read.
    struct Rung {
        var recipe: VariantRecipe
        var entry: Manifest.VariantEntry
        var bytes: [UInt8]
        var sha256: String
    }

    /// The problem kind of a file that exists but cannot be read (verify then exits 74).
    package static let unreadable = "unreadable"

    /// The largest manifest verify reads.
    static let manifestByteLimit = 1 << 30

    /// Replays the image's progressive variant and simulates its ladder on each profile asked for
    /// and each profile with a budget.
    private func replayLadder(
        _ key: String, source: String?, rungs: [Rung], problems: [VerificationProblem], cache: ReplayCache?
    ) -> (problems: [VerificationProblem], replay: ImageReplay?) {
        var problems = problems
        // The rungs an app walks: smallest first, the replayed progressive variant last.
        let bySize = rungs.sorted {
            ($0.entry.width * $0.entry.height, $0.recipe.name) < ($1.entry.width * $1.entry.height, $1.recipe.name)
        }
        guard let full = bySize.last(where: { $0.recipe.progressive != nil }) ?? bySize.last else {
            return (problems, nil)
        }
        let ordered = bySize.filter { $0.recipe.name != full.recipe.name } + [full]

        let label =
            outputLabel + "/"
            + (FilePath.relative(full.entry.path, to: configuration.outputPrefixInManifest) ?? full.entry.path)
        var replayOptions = ProgressiveReplay.Options(
            chunkBytes: options.chunkBytes ?? configuration.replay.chunkBytes,
            firstPaintBudget: configuration.replay.firstPaintBudget,
            expectedScans: full.entry.scans)
        replayOptions.maximumScans = min(configuration.limits.maxScans, ScanScript.maximumScans)
        replayOptions.maximumPixels = min(configuration.limits.maxPixels, full.recipe.maxWidth * full.recipe.maxHeight)
        let cacheKey = ReplayCache.key(
            rungs: ordered.map { ($0.recipe.name, $0.sha256) },
            settings: [
                "chunk \(replayOptions.chunkBytes)", "first-paint \(replayOptions.firstPaintBudget)",
                "scans \(replayOptions.expectedScans.map(String.init) ?? "-")",
                "maximum \(replayOptions.maximumScans) \(replayOptions.maximumPixels)", "quality \(options.replay)",
            ])
        let replayed: ReplayCache.Entry
        if let cached = cache?.entry(for: cacheKey) {
            replayed = cached
        } else {
            replayed = replay(full, ordered: ordered, key: key, label: label, options: replayOptions)
            cache?.store(replayed, for: cacheKey)
        }
        var report = replayed.report
        report.path = label
        // A chosen script whose first picture is over the share budget is the best N scans can
        // do for this image; the build said what it would take, and the file is not broken.
        for finding in report.problems where !full.recipe.excusesFirstPaint(finding.kind, of: full.bytes) {
            problems.append(
                VerificationProblem(path: label, kind: "replay-" + finding.kind, message: finding.message, image: key))
        }
        let timelineRungs = replayed.rungs
        var profileNames = options.profiles
        for name in configuration.replay.budgets.keys.sorted() where !profileNames.contains(name) {
            profileNames.append(name)
        }
        var timelines: [LadderTimeline] = []
        for name in profileNames {
            guard let profile = configuration.replay.profile(named: name) else { continue }
            let timeline = LadderTimeline.simulate(timelineRungs, over: profile)
            timelines.append(timeline)
            guard let budget = configuration.replay.budgets[name] else { continue }
            let who = source ?? key
            if let limit = budget.firstPictureSeconds, let first = timeline.firstPictureSeconds, first > limit {
                problems.append(
                    VerificationProblem(
                        path: label, kind: "budget",
                        message:
                            "on \(name) the first picture of \(who) shows after \(seconds(first)), over the budget of \(seconds(limit))",
                        image: key))
            }
            if let message = budget.ssimProblem(timeline, profile: name, image: who) {
                problems.append(VerificationProblem(path: label, kind: "budget", message: message, image: key))
            }
            if let limit = budget.completeSeconds, let complete = timeline.completeSeconds, complete > limit {
                problems.append(
                    VerificationProblem(
                        path: label, kind: "budget",
                        message:
                            "on \(name) \(who) is complete after \(seconds(complete)), over the budget of \(seconds(limit))",
                        image: key))
            }
        }
        let replay = ImageReplay(
            image: key, source: source, variant: full.recipe.name, report: report, timelines: timelines)
        return (problems, options.replay || !timelines.isEmpty ? replay : nil)
    }

    /// Replays the full-size rung and measures the others against its final picture.
    private func replay(
        _ full: Rung, ordered: [Rung], key: String, label: String, options replayOptions: ProgressiveReplay.Options
    ) -> ReplayCache.Entry {
        let frames = options.frames
        let collect: ((Int, DecodedPixels) -> Void)? =
            frames.map { frames in
                { scan, pixels in frames.collect(image: key, variant: full.recipe.name, scan: scan, pixels: pixels) }
            }
        // The quality of each rung against the final full-size picture, for deciding what an app
        // would replace with what: measured in the replay's own pass over its scans, against its
        // final picture; against a decode of the file as it is when the replay has none.
        let lower = ordered.prefix { $0.entry.path != full.entry.path }
        let measuresRungs = options.replay
        let replayed = ProgressiveReplay(options: replayOptions).replayKeepingFinal(
            full.bytes, path: label, frameSide: frames?.maximumSide ?? .max, frame: collect
        ) { size in
            measuresRungs ? lower.map { Self.luma(of: $0.bytes, scaledTo: size) } : []
        }
        let report = replayed.report
        var ssims = replayed.others
        if measuresRungs, replayed.final == nil,
            let final = try? DecodedPixels(decodingJPEG: full.bytes, lumaOnly: true)
        {
            let size = PixelSize(width: final.width, height: final.height)
            ssims = ImageQuality.ssim(
                present: lower.map { Self.luma(of: $0.bytes, scaledTo: size) }, reference: final.luma(),
                width: final.width, height: final.height)
        }
        let qualities = lower.indices.map { index in
            index < ssims.count ? ssims[index].map { ($0 * 10_000).rounded() / 10_000 } : nil
        }
        var timelineRungs: [LadderTimeline.Rung] = []
        for (rung, quality) in zip(lower, qualities) {
            frames?.collect(
                image: key, variant: rung.recipe.name, file: rung.bytes, width: rung.entry.width,
                height: rung.entry.height)
            timelineRungs.append(
                LadderTimeline.Rung(
                    variant: rung.recipe.name, bytes: rung.bytes.count,
                    paints: [LadderTimeline.Rung.Paint(scan: nil, offset: rung.bytes.count, ssim: quality)]))
        }
        if lower.count < ordered.count {
            let paints = report.scans.compactMap { scan in
                scan.shownAt.map {
                    LadderTimeline.Rung.Paint(scan: scan.scan, offset: $0, ssim: options.replay ? scan.ssim : nil)
                }
            }
            timelineRungs.append(
                LadderTimeline.Rung(variant: full.recipe.name, bytes: full.bytes.count, paints: paints))
        }
        return ReplayCache.Entry(report: report, rungs: timelineRungs)
    }

    /// The luma plane of a smaller rung, stretched to `size` (the final picture's) as an app that
    /// shows it in the full picture's place does, by bilinear filtering (`BilinearScaling`): the
    /// decoder's own Y plane for a YCbCr JPEG, as the final picture's luma is; luma from the
    /// decoded colours otherwise. nil when the file cannot be decoded.
    static func luma(of thumbnail: [UInt8], scaledTo size: PixelSize) -> [UInt8]? {
        guard
            let plane = (try? DecodedPixels(decodingJPEG: thumbnail, lumaOnly: true))
                ?? (try? Image(decoding: thumbnail).decodedPixels()),
            plane.width > 0, plane.height > 0
        else { return nil }
        return BilinearScaling.scaled(plane.luma(), width: plane.width, height: plane.height, to: size)
    }

    // MARK: - Sources

    /// The current source files, to be hashed by `SourceDigests.hashNext()`, or the problem
    /// that stops the walk.
    private func walkSources() -> Step<SourceDigests> {
        do {
            return .done(SourceDigests(files: try SourceWalker(configuration: configuration).walk().files))
        } catch {
            return .stopped(
                VerificationProblem(path: error.path, kind: "source-unreadable", message: error.description))
        }
    }

    /// Every current source must be in the manifest under its current content, and every
    /// source the manifest names must still be there; a source that failed to build is a problem.
    private func checkSources(_ manifest: Manifest, _ digests: SourceDigests) -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        let files = digests.files
        // Paths by their bytes: Swift's strings compare names that differ only by Unicode
        // normalization equal, while they are two files here (see `SourceWalker`).
        var listed: [[UInt8]: String] = [:]
        for (key, entry) in manifest.images { for path in entry.sources { listed[Array(path.utf8)] = key } }

        for (file, digest) in zip(files, digests.results) {
            switch digest {
            case .failure(let error)?:
                problems.append(
                    VerificationProblem(path: file.path, kind: "source-unreadable", message: error.description))
            case .success(let sha1)?:
                if manifest.failures[file.path] != nil {
                    // Accounted for, while it has the bytes that failed: the build said why.
                    if let failed = manifest.failureSHA1?[file.path], failed != sha1 {
                        problems.append(
                            VerificationProblem(
                                path: file.path, kind: "stale",
                                message: "the source failed to build and has changed since; run ladder build"))
                    }
                    continue
                }
                let recorded = listed[Array(file.path.utf8)]
                if recorded == sha1 {
                    continue
                } else if recorded != nil {
                    problems.append(
                        VerificationProblem(
                            path: file.path, kind: "stale",
                            message: "the source changed since the build; run ladder build"))
                } else {
                    problems.append(
                        VerificationProblem(
                            path: file.path, kind: "stale",
                            message: "the source was added since the build; run ladder build"))
                }
            case nil:
                continue
            }
        }
        let present = Set(files.map { Array($0.path.utf8) })
        let named = Set(listed.keys).union(manifest.failures.keys.map { Array($0.utf8) })
        for path in named where !present.contains(path) {
            problems.append(
                VerificationProblem(
                    path: String(decoding: path, as: UTF8.self), kind: "stale",
                    message: "the manifest lists a source that no longer exists; run ladder build",
                    image: listed[path]))
        }
        return problems
    }

    // MARK: - Orphans

    /// Every file in the output folder must be known to the manifest (or be the manifest).
    private func checkOrphans(_ manifest: Manifest, output: Directory) -> [VerificationProblem] {
        let prefix = configuration.outputPrefixInManifest
        var known: Set<String> = []
        for entry in manifest.images.values {
            for path in entry.variants.values.flatMap(\.filePaths) {
                if let relative = prefix.isEmpty ? path : FilePath.relative(path, to: prefix) {
                    known.insert(relative)
                }
            }
        }
        if let manifestInside = FilePath.relative(configuration.manifestPath, to: configuration.outputDirectory) {
            known.insert(manifestInside)
            known.formUnion(ManifestIndexWriter.pathsInOutput(manifestInside, manifest: manifest))
        }
        // Other pipelines may share the output folder: what their manifests list is theirs.
        known.insert(OutputOwnership.lockFileName)
        known.formUnion(OutputOwnership.filesOfOtherManifests(configuration, ownPartials: true))
        var problems: [VerificationProblem] = []
        func walk(_ directory: Directory, _ relative: String) {
            guard let names = try? directory.entries() else { return }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                guard let status = try? directory.status(of: name) else { continue }
                switch status.kind {
                case .directory:
                    if let child = try? directory.subdirectory(name, create: false) { walk(child, path) }
                case .regular where known.contains(path):
                    continue
                default:
                    let what =
                        status.kind == .symbolicLink
                        ? "a symbolic link" : status.kind == .regular ? "a file" : "a special file"
                    problems.append(
                        VerificationProblem(
                            path: outputLabel + "/" + path, kind: "orphan",
                            message: "\(what) the manifest does not know"))
                }
            }
        }
        walk(output, "")
        return problems
    }
}

private func seconds(_ value: Double) -> String {
    String(format: "%.2f s", value)
}
