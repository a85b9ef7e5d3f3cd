import LadderImaging
import LadderManifest

/// The replay phase of `ladder verify`: each image's progressive variant is replayed as an app's
/// decoder loads it (`ProgressiveReplay`), and its smaller rungs measured against the final
/// picture for the ladder timelines, or the results of an unchanged image are taken from the
/// replay cache.
struct ReplayPhase: Sendable {
    let configuration: PipelineConfiguration
    let outputLabel: String
    let options: Verifier.Options
    let cache: ReplayCache?
    /// The output folder relative to the manifest's: worked out once, not once an image.
    private let prefix: String

    init(configuration: PipelineConfiguration, outputLabel: String, options: Verifier.Options, cache: ReplayCache?) {
        self.configuration = configuration
        self.outputLabel = outputLabel
        self.options = options
        self.cache = cache
        prefix = configuration.outputPrefixInManifest
    }

    /// What the phase found of one image: the replay's findings and the rungs of its timeline.
    struct Result {
        var problems: [VerificationProblem]
        var label: String
        var variant: String
        var report: ReplayReport
        var rungs: [LadderTimeline.Rung]
    }

    /// True when the rungs' and the scans' quality is measured, so that a timeline carries it:
    /// when replays are asked for, and whenever a budget sets an SSIM to reach.
    var measuresQuality: Bool {
        options.replay || configuration.replay.budgets.values.contains { $0.ssim != nil }
    }

    /// Replays the image's progressive variant (the largest rung when none is progressive).
    func replay(_ key: String, rungs: [ImagePhase.Rung]) -> Result? {
        // The rungs an app walks: smallest first, the replayed progressive variant last.
        let bySize = rungs.sorted {
            ($0.entry.width * $0.entry.height, $0.recipe.name) < ($1.entry.width * $1.entry.height, $1.recipe.name)
        }
        guard let full = bySize.last(where: { $0.recipe.progressive != nil }) ?? bySize.last else { return nil }
        let ordered = bySize.filter { $0.recipe.name != full.recipe.name } + [full]
        let label =
            outputLabel + "/"
            + (FilePath.relative(full.entry.path, to: prefix) ?? full.entry.path)
        var replayOptions = ProgressiveReplay.Options(
            chunkBytes: options.chunkBytes ?? configuration.replay.chunkBytes,
            firstPaintBudget: configuration.replay.firstPaintBudget,
            expectedScans: full.entry.scans, displayWidth: configuration.replay.displayWidth)
        replayOptions.maximumScans = min(configuration.limits.maxScans, ScanScript.maximumScans)
        replayOptions.maximumPixels = min(configuration.limits.maxPixels, full.recipe.maxWidth * full.recipe.maxHeight)
        let cacheKey = ReplayCache.key(
            rungs: ordered.map { ($0.recipe.name, $0.sha256) },
            settings: [
                "chunk \(replayOptions.chunkBytes)", "first-paint \(replayOptions.firstPaintBudget)",
                "scans \(replayOptions.expectedScans.map(String.init) ?? "-")",
                "maximum \(replayOptions.maximumScans) \(replayOptions.maximumPixels)", "quality \(measuresQuality)",
                "view \(configuration.replay.displayWidth) after \(configuration.replay.firstRung ?? "nothing")",
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
        var problems: [VerificationProblem] = []
        // A chosen script whose first picture is over the share budget is the best N scans can
        // do for this image; the build said what it would take, and the file is not broken. The
        // default budget is the build's aim, not the user's demand: only a budget pipeline.json
        // sets is checked.
        let budgetIsSet = configuration.replay.firstPaintBudgetIsSet
        for finding in report.problems
        where !full.recipe.excusesFirstPaint(finding.kind.rawValue, of: full.bytes)
            && (budgetIsSet || finding.kind != .firstPaint)
        {
            problems.append(
                VerificationProblem(
                    path: label, kind: ProblemKind(replay: finding.kind), message: finding.message, image: key))
        }
        return Result(
            problems: problems, label: label, variant: full.recipe.name, report: report, rungs: replayed.rungs)
    }

    /// Replays the full-size rung and measures the others against its final picture.
    private func replay(
        _ full: ImagePhase.Rung, ordered: [ImagePhase.Rung], key: String, label: String,
        options replayOptions: ProgressiveReplay.Options
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
        let measuresRungs = measuresQuality
        // The rung an app shows before the full-size one, on screen until a scan beats it.
        let firstRung = lower.first { $0.recipe.name == configuration.replay.firstRung }.map {
            (name: $0.recipe.name, bytes: $0.bytes)
        }
        let replayed = ProgressiveReplay(options: replayOptions).replayKeepingFinal(
            full.bytes, path: label, frameSide: frames?.maximumSide ?? .max, frame: collect, firstRung: firstRung
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
                    LadderTimeline.Rung.Paint(scan: scan.scan, offset: $0, ssim: measuresRungs ? scan.ssim : nil)
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
}
