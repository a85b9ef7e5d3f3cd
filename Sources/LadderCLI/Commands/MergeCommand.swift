import Foundation
import LadderCore

/// `ladder merge`: joins the partial manifests of a sharded build.
struct MergeCommand: LadderCommand {
    static let name = "merge"
    static let summary = "Join the partial manifests of a sharded build into the manifest."
    static let synopsis = "[--config PATH] [--json] [--keep-partials] [--no-wait]"
    static let discussion = """
        Reads the partial manifests that 'ladder build --shard K/N' wrote beside the manifest
        (manifest.shard-K-of-N.json; gather every shard's output folder into one first) and
        writes the manifest one unsharded build would have written, byte for byte. It checks that
        all N shards are there once, that they ran on the same sources with the same pipeline and
        the same ladder, that every source is covered exactly once and that no two shards
        disagree; if anything is wrong it names the file and the problem and writes nothing.
        The partial manifests are deleted once merged, so that the output folder can be
        published as it is.
        """
    static let options = [
        .config,
        OptionSpec(names: ["--json"], help: "Print the result as one JSON object on standard output."),
        OptionSpec(names: ["--keep-partials"], help: "Keep the partial manifests after merging them."),
        OptionSpec(
            names: ["--no-wait"], help: "Exit with 75 instead of waiting when a build holds the output folder."),
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "the manifest is written (or was already up to date)"),
        (.failure, "the partial manifests do not fit together; nothing was written"),
        (.usage, "unknown option or bad option value"),
        (.invalidConfiguration, "pipeline.json is invalid"),
        (.ioError, "reading or writing failed; the previous manifest is intact"),
        (.locked, "a build holds the output folder and --no-wait was given"),
    ]

    var configPath = "pipeline.json"
    var json = false
    var keepPartials = false
    var wait = true
    var verbosity = Verbosity.normal

    init(parsing options: ParsedOptions) throws(UsageError) {
        if let first = options.positional.first {
            throw UsageError("unexpected argument '\(first)'", command: Self.name)
        }
        configPath = options.value("--config") ?? configPath
        json = options.has("--json")
        keepPartials = options.has("--keep-partials")
        wait = !options.has("--no-wait")
        verbosity = try Verbosity(options, command: Self.name)
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        let configuration: PipelineConfiguration
        switch preparePipeline(configPath, console: console, startImaging: false) {
        case .success(let loaded): configuration = loaded
        case .failure(let code): return code
        }
        let report: MergeReport
        do {
            report = try ManifestMerger(configuration: configuration, waitForLock: wait, keepPartials: keepPartials)
                .run()
        } catch {
            console.error(error.description)
            if case .locked = error { return .locked }
            return .ioError
        }
        if json {
            console.write(encodeJSONLine(MergeJSON(report)))
        } else if report.ok {
            if verbosity != .quiet {
                console.print(
                    "merged \(report.shards) shards: \(report.images) images from \(report.sources) sources, \(report.failures) failed"
                )
                let written = report.manifestWritten ? "" : " (unchanged)"
                console.print("  manifest: \(displayPath(report.manifestPath))\(written)")
            }
        } else {
            console.error("cannot merge into \(displayPath(report.manifestPath)); nothing was written:")
            for problem in report.problems {
                console.error("  \(displayPath(problem.path)): \(problem.message)")
            }
        }
        return report.ok ? .success : .failure
    }
}

/// The `ladder merge --json` object.
struct MergeJSON: Encodable {
    struct Problem: Encodable {
        var path: String
        var kind: String
        var message: String
    }

    var ok: Bool
    var manifest: String
    var manifestWritten: Bool
    var shards: Int
    var sources: Int
    var images: Int
    var failures: Int
    var partials: [String]
    var problems: [Problem]

    init(_ report: MergeReport) {
        ok = report.ok
        manifest = displayPath(report.manifestPath)
        manifestWritten = report.manifestWritten
        shards = report.shards
        sources = report.sources
        images = report.images
        failures = report.failures
        partials = report.partials.map(displayPath)
        problems = report.problems.map {
            Problem(path: displayPath($0.path), kind: $0.kind.rawValue, message: $0.message)
        }
    }
}
