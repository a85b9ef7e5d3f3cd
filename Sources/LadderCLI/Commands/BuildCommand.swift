import Foundation
import LadderCore
import LadderImaging
import LadderManifest

/// `ladder build`: runs the pipeline.
struct BuildCommand: LadderCommand {
    static let name = "build"
    static let summary = "Make the variants of every source and write the manifest."
    static let synopsis = "[--config PATH] [--jobs N] [--shard K/N] [--report DIR] [--json] [--no-wait]"
    static let discussion = """
        Reads pipeline.json, finds the images under its source folders and makes each configured
        variant of each one. Only what changed is made again: a source whose bytes, recipe and
        encoder are unchanged is skipped. Every file is written under a temporary name, flushed
        and renamed; the manifest is written last. A source that fails is listed with its reason
        and the others are still built.

        With --shard, only the sources whose SHA1 falls in shard K of N are built, into a partial
        manifest beside the manifest (manifest.shard-K-of-N.json); 'ladder merge' joins the
        partial manifests of all N shards into the manifest one build would have written.
        --shard auto/N takes K from LADDER_SHARD_INDEX, JOB_COMPLETION_INDEX (Kubernetes Indexed
        Jobs) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch array jobs), counted from 0; --shard auto
        also takes N from LADDER_SHARD_COUNT.
        """
    static let options = [
        .config,
        .jobs("Sources processed at once."),
        OptionSpec(
            names: ["--shard"], value: "K/N",
            help: "Build only shard K of N (K from 1), or auto/N or auto to read it from the environment.",
            defaultText: "the whole build"),
        OptionSpec(names: ["--json"], help: "Print the summary as one JSON object on standard output."),
        OptionSpec(
            names: ["--no-wait"], help: "Exit with 75 instead of waiting when another build holds the output folder."),
        OptionSpec(
            names: ["--report"], value: "DIR",
            help:
                "Also write DIR/index.html: every image's variants, the failures, ladder verify's findings and replay filmstrips."
        ),
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "every source was built (or was up to date)"),
        (.failure, "some sources failed; the others are built and in the manifest, which lists the failures"),
        (.usage, "unknown option or bad option value"),
        (.invalidConfiguration, "pipeline.json is invalid"),
        (.ioError, "reading or writing failed (for example a full disk); the previous manifest is intact"),
        (.locked, "another build holds the output folder and --no-wait was given"),
    ]

    var configPath = "pipeline.json"
    var jobs = Defaults.jobs
    var json = false
    var wait = true
    var shardSpecification: String?
    var reportPath: String?
    var verbosity = Verbosity.normal

    init(parsing options: ParsedOptions) throws(UsageError) {
        if let first = options.positional.first {
            throw UsageError("unexpected argument '\(first)'", command: Self.name)
        }
        configPath = options.value("--config") ?? configPath
        jobs = try options.integer("--jobs", in: 1...1024, command: Self.name) ?? jobs
        json = options.has("--json")
        wait = !options.has("--no-wait")
        shardSpecification = options.value("--shard")
        reportPath = options.value("--report")
        if reportPath != nil && shardSpecification != nil {
            throw UsageError(
                "--report shows a whole build: run ladder merge, then ladder build --report DIR (it has nothing left to make)",
                command: Self.name)
        }
        verbosity = try Verbosity(options, command: Self.name)
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        var shard: Shard?
        if let shardSpecification {
            do {
                shard = try Shard(parsing: shardSpecification, environment: context.environment)
            } catch {
                console.error(UsageError("--shard: \(error)", command: Self.name).description)
                return .usage
            }
        }
        let configuration: PipelineConfiguration
        // This process never decodes: only the render workers start libvips.
        switch preparePipeline(configPath, console: console, startImaging: false) {
        case .success(let loaded): configuration = loaded
        case .failure(let code): return code
        }

        let progress = BuildProgress(console: console, verbosity: verbosity)
        if verbosity == .verbose {
            Imaging.setWarningHandler { progress.warning("libvips: \($0)") }
        }
        let workers = context.rendering.workerPool(limits: configuration.limits, jobs: jobs)
        defer { workers.shutdown() }

        let builder = Builder(
            configuration: configuration, options: Builder.Options(jobs: jobs, waitForLock: wait, shard: shard),
            workers: workers, observer: progress)
        let report: BuildReport
        do {
            report = try builder.run()
        } catch {
            progress.finish()
            console.error(error.description)
            if case .locked = error { return .locked }
            return .ioError
        }
        progress.finish()
        if json {
            console.write(BuildSummaryJSON(report).encoded())
        } else if verbosity != .quiet || !report.failed.isEmpty {
            printSummary(report, console: console)
        }
        if let reportPath {
            if let failure = writeReport(report, to: reportPath, configuration: configuration, console: console) {
                return failure
            }
        }
        return report.failed.isEmpty ? .success : .failure
    }

    /// Verifies and replays what the build wrote, then writes the report page; the exit code
    /// when that fails.
    private func writeReport(
        _ build: BuildReport, to path: String, configuration: PipelineConfiguration, console: Console
    ) -> ExitCode? {
        let directory = FilePath.join(FileManager.default.currentDirectoryPath, path)
        if verbosity != .quiet { console.diagnose("writing the report: verifying and replaying every image...") }
        do {
            try Imaging.start(threadsPerImage: 1)
            let manifest = try Manifest(jsonData: Data(contentsOf: URL(fileURLWithPath: build.manifestPath)))
            let gallery = try FrameGallery(directory: FilePath.join(directory, "replay"))
            let verification = Verifier(
                configuration: configuration, options: Verifier.Options(replay: true, jobs: jobs, frames: gallery)
            ).run()
            try gallery.writeIndex(
                replays: verification.replays, title: "ladder replay filmstrips",
                chunkBytes: configuration.replay.chunkBytes)
            let page = try ReportPage(
                configuration: configuration, manifest: manifest, build: build, verification: verification,
                filmstrips: "replay/index.html"
            ).write(to: directory)
            if !json { console.print("  report: \(displayPath(page))") }
            return nil
        } catch {
            console.error("cannot write the report in '\(displayPath(directory))': \(error)")
            return .ioError
        }
    }

    /// "format siblings: 40 written (webp 20, jxl 20), 3 skipped as not smaller than their JPEG at
    /// equal quality (webp 3)", nil when the build made none.
    static func siblingsLine(_ report: BuildReport) -> String? {
        func counts(_ byFormat: [SiblingFormat: Int]) -> String {
            byFormat.keys.sorted().map { "\($0.rawValue) \(byFormat[$0] ?? 0)" }.joined(separator: ", ")
        }
        let written = report.siblingsWritten.values.reduce(0, +)
        let skipped = report.siblingsSkipped.values.reduce(0, +)
        guard written + skipped > 0 else { return nil }
        var line = "format siblings: \(written) written"
        if written > 0 { line += " (\(counts(report.siblingsWritten)))" }
        line += ", \(skipped) skipped as not smaller than their JPEG at equal quality"
        if skipped > 0 { line += " (\(counts(report.siblingsSkipped)))" }
        return line
    }

    private func printSummary(_ report: BuildReport, console: Console) {
        let images = report.built + report.skipped
        var line =
            "\(images) image\(images == 1 ? "" : "s") from \(report.sources) source\(report.sources == 1 ? "" : "s"): "
        line += "\(report.built) built, \(report.skipped) up to date"
        if let shard = report.shard {
            line += ", \(report.inOtherShards) left to other shards (this is shard \(shard))"
        }

        if !report.failed.isEmpty { line += ", " + console.styledOutput("\(report.failed.count) failed", .red) }
        line += String(format: " (%.1f s)", report.seconds)
        console.print(line)
        if report.filesWritten > 0 || report.filesRemoved > 0 {
            console.print("  \(report.filesWritten) variant files written, \(report.filesRemoved) stale files removed")
        }
        if let siblings = Self.siblingsLine(report) { console.print("  " + siblings) }
        console.print("  variants: \(displayPath(report.outputDirectory))")
        console.print("  manifest: \(displayPath(report.manifestPath))\(report.manifestWritten ? "" : " (unchanged)")")
        if !report.failed.isEmpty {
            console.print("Failed:")
            for failure in report.failed { console.print("  \(failure.source): \(failure.reason)") }
        }
    }
}

/// How much a command prints besides its result.
enum Verbosity: Sendable {
    case quiet, normal, verbose

    init(_ options: ParsedOptions, command: String) throws(UsageError) {
        switch (options.has("--quiet"), options.has("--verbose")) {
        case (true, true): throw UsageError("--quiet and --verbose cannot be used together", command: command)
        case (true, false): self = .quiet
        case (false, true): self = .verbose
        case (false, false): self = .normal
        }
    }
}

/// A path as the user should see it: relative to the working directory when inside it.
func displayPath(_ path: String) -> String {
    let current = FileManager.default.currentDirectoryPath
    return FilePath.relative(path, to: current).map { $0.isEmpty ? "." : $0 } ?? path
}
