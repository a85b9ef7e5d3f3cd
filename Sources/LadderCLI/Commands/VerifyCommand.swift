import Foundation
import LadderCore
import LadderImaging

/// `ladder verify`: proves that what the last build wrote is intact, and optionally replays it.
struct VerifyCommand: LadderCommand {
    static let name = "verify"
    static let summary = "Check that every variant is intact and loads progressively as configured."
    static let synopsis = "[--config PATH] [--deep] [--replay] [--profile NAME] [--json] [--junit FILE] [--frames DIR]"
    static let discussion = """
        Reads pipeline.json and the manifest, trusting neither the build nor its caches, and
        reports every problem: manifest paths that are not safe, variant files missing, resized
        or altered (size and SHA-256), undecodable, of another size than their recipe gives for
        their source or over their box, made with another recipe than pipeline.json's now;
        progressive variants without exactly the configured scans and script; metadata the
        policy removes (GPS, orientation other than 1, tags not kept); placeholders and
        averageColor that are not those of the smallest variant, hasAlpha that is not the
        source's; sources that changed, appeared or disappeared since the build, or failed to
        build; files in the output folder the manifest does not know. Structure is judged from
        each file's headers and segments and its bytes by their SHA-256; a file is decoded only
        when those cannot vouch for it (or always, with --deep, which also decodes the sources
        with an alpha channel), and never when its header is over its box or the limits.
        With --replay it also replays how every progressive variant
        loads (see 'ladder replay --help') and simulates each image's ladder on the network
        profiles of --profile and of the budgets in pipeline.json.
        """
    static let options = [
        .config,
        OptionSpec(
            names: ["--deep"],
            help: "Decode every variant, even those whose SHA-256 matches the manifest, and every source with alpha."),
        OptionSpec(names: ["--replay"], help: "Replay the progressive loading of every full-size variant."),
        OptionSpec(
            names: ["--no-cache"],
            help: "Decode and replay every image again instead of reusing the results of unchanged files."),
        OptionSpec(
            names: ["--profile"], value: "NAME",
            help:
                "Simulate each image's ladder on a network profile (slow-2g, 2g, 3g, 4g, or one in pipeline.json); repeatable."
        ),
        OptionSpec(
            names: ["--chunk"], value: "BYTES", help: "Bytes delivered at a time in replays.",
            defaultText: "replay.chunkBytes, \(Defaults.chunkBytes)"),
        OptionSpec(names: ["--json"], help: "Print the result as one JSON object on standard output."),
        OptionSpec(names: ["--junit"], value: "FILE", help: "Also write JUnit XML, one test case per image."),
        OptionSpec(
            names: ["--frames"], value: "DIR",
            help: "Write every replayed picture as a JPEG, and DIR/index.html showing them."),
        .jobs("Threads that check images, sources, the index and the output folder."),
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "everything holds"),
        (.failure, "a problem was found"),
        (.usage, "unknown option or bad option value"),
        (.invalidConfiguration, "pipeline.json is invalid"),
        (.ioError, "a file cannot be read, or a report or the result cannot be written"),
    ]

    var configPath = "pipeline.json"
    var replay = false
    var deep = false
    var reusesResults = true
    var profiles: [String] = []
    var chunkBytes: Int?
    var json = false
    var junitPath: String?
    var framesPath: String?
    var jobs = Defaults.jobs
    var verbosity = Verbosity.normal

    init(parsing options: ParsedOptions) throws(UsageError) {
        if let first = options.positional.first {
            throw UsageError("unexpected argument '\(first)'", command: Self.name)
        }
        configPath = options.value("--config") ?? configPath
        replay = options.has("--replay")
        deep = options.has("--deep")
        reusesResults = !options.has("--no-cache")
        profiles = options.values("--profile")
        chunkBytes = try options.integer("--chunk", in: 1...(1 << 30), command: Self.name)
        json = options.has("--json")
        junitPath = options.value("--junit")
        framesPath = options.value("--frames")
        if framesPath != nil { replay = true }
        jobs = try options.integer("--jobs", in: 1...1024, command: Self.name) ?? jobs
        verbosity = try Verbosity(options, command: Self.name)
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        let configuration: PipelineConfiguration
        switch preparePipeline(configPath, console: console) {
        case .success(let loaded): configuration = loaded
        case .failure(let code): return code
        }
        for name in profiles where configuration.replay.profile(named: name) == nil {
            console.error(
                "unknown network profile '\(name)'; known: \(configuration.replay.profileNames.joined(separator: ", "))"
            )
            return .usage
        }
        var gallery: FrameGallery?

        if let framesPath {
            do {
                gallery = try FrameGallery(
                    directory: FilePath.join(FileManager.default.currentDirectoryPath, framesPath))
            } catch {
                console.error(error.description)
                return .ioError
            }
        }
        let verifier = Verifier(
            configuration: configuration,
            options: Verifier.Options(
                replay: replay, profiles: profiles, chunkBytes: chunkBytes, jobs: jobs, frames: gallery, deep: deep,
                reusesResults: reusesResults, namesImages: junitPath != nil))
        let report = verifier.run()

        if let junitPath {
            do {
                try JUnitReport(report).write(to: junitPath)
            } catch {
                console.error("cannot write '\(junitPath)': \(error)")
                return .ioError
            }
        }
        if let gallery {
            do {
                let index = try gallery.writeIndex(
                    replays: report.replays, title: "ladder verify --replay",
                    chunkBytes: chunkBytes ?? configuration.replay.chunkBytes)
                if !json { console.diagnose("replay pictures: \(displayPath(index))") }
            } catch {
                console.error(error.description)
                return .ioError
            }
        }
        if json {
            console.write(encodeJSONLine(VerifyJSON(report, replayed: verifier.options.replays(configuration))))
        } else {
            VerifyText.print(report, console: console, verbose: verbosity == .verbose)
        }
        if report.hasReadFailures { return .ioError }
        return report.isOK ? .success : .failure
    }
}
