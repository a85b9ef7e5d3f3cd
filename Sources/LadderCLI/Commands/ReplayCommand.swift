import Foundation
import LadderCore
import LadderImaging

/// `ladder replay FILE...`: replays the progressive loading of any JPEG files.
struct ReplayCommand: LadderCommand {
    static let name = "replay"
    static let summary = "Replay how JPEG files load progressively, scan by scan."
    static let synopsis =
        "FILE.jpg... [--json] [--chunk BYTES] [--scans N] [--first-paint-budget SHARE] [--display-width PIXELS] [--first-rung FILE.jpg] [--compare [--candidates]]"
    static let discussion = """
        Feeds each file to libjpeg-turbo chunk by chunk, as a browser or an app's incremental
        image source receives it, and renders what can be shown after each scan. For every scan
        it reports the byte offset after which it can be shown, where an app fed in chunks paints
        it, and its quality against the final picture (PSNR and SSIM on luma, and in colour as a
        view of --display-width pixels shows it). With --first-rung, that picture is on screen,
        stretched to the view, until a scan beats it. It checks that the file's picture is on
        screen within the budget share of the file, that quality rises scan by scan, and that
        the last paint equals a one-shot decode. Files with more than 100 scans are
        refused before decoding; truncated and corrupt files are reported, never crash it.
        """
    static let options = [
        OptionSpec(names: ["--json"], help: "Print the results as one JSON object on standard output."),
        OptionSpec(
            names: ["--chunk"], value: "BYTES", help: "Bytes delivered at a time.",
            defaultText: "\(Defaults.chunkBytes)"),
        OptionSpec(
            names: ["--scans"], value: "N", help: "Also require exactly N scans in every file."),
        OptionSpec(
            names: ["--first-paint-budget"], value: "SHARE",
            help:
                "The share of a file (0 to 1) after which its picture must be on screen: better than the first rung, or, without one, shown at all.",
            defaultText: "\(Defaults.firstPaintBudget)"),
        OptionSpec(
            names: ["--display-width"], value: "PIXELS",
            help: "The width of the view pictures are compared in, in colour.",
            defaultText: "\(Defaults.displayWidth)"),
        OptionSpec(
            names: ["--first-rung"], value: "FILE.jpg",
            help: "A picture on screen before each file (its large_thumb, say), until a scan beats it."),
        OptionSpec(
            names: ["--compare"],
            help:
                "Instead, print the quality over the download of each file as it is, re-scanned with libjpeg's default progression (10 scans for color), and re-scanned with the fixed 5-scan script: the same coefficients, losslessly."
        ),
        OptionSpec(
            names: ["--candidates"],
            help:
                "With --compare, also every candidate script \"script\": \"auto\" chooses from, with the chooser's estimate next to the replayed measure."
        ),
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "every file loads as it should"),
        (.failure, "a problem was found in at least one file"),
        (.usage, "no file given, or a bad option value"),
        (.ioError, "a file cannot be read"),
    ]

    var files: [String]
    var json = false
    var replayOptions = ProgressiveReplay.Options()
    var verbosity = Verbosity.normal
    var compare = false
    var candidates = false
    var firstRung: String?

    init(parsing options: ParsedOptions) throws(UsageError) {
        files = options.positional
        guard !files.isEmpty else { throw UsageError("give at least one JPEG file", command: Self.name) }
        json = options.has("--json")
        replayOptions.chunkBytes =
            try options.integer("--chunk", in: 1...(1 << 30), command: Self.name) ?? replayOptions.chunkBytes
        replayOptions.expectedScans = try options.integer("--scans", in: 1...100, command: Self.name)
        if let text = options.value("--first-paint-budget") {
            guard let share = Double(text), share > 0, share <= 1 else {
                throw UsageError(
                    "--first-paint-budget expects a share between 0 and 1, not '\(text)'", command: Self.name)
            }
            replayOptions.firstPaintBudget = share
        }
        replayOptions.displayWidth =
            try options.integer("--display-width", in: 16...65_535, command: Self.name) ?? Defaults.displayWidth
        firstRung = options.value("--first-rung")
        verbosity = try Verbosity(options, command: Self.name)
        compare = options.has("--compare")
        candidates = options.has("--candidates")
        if candidates && !compare { throw UsageError("--candidates goes with --compare", command: Self.name) }
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        if compare { return runComparison(console) }
        // Each replay allocates and frees planes of megabytes: reuse their pages.
        Allocator.keepFreedPictures()
        let replay = ProgressiveReplay(options: replayOptions)
        var rung: [UInt8]?
        if let firstRung {
            guard let data = FileManager.default.contents(atPath: firstRung) else {
                console.error("cannot read '\(firstRung)'")
                return .ioError
            }
            rung = [UInt8](data)
        }
        var reports: [ReplayReport] = []
        for file in files {
            // The build's limits: a file over limits.maxFileBytes is refused by its size before
            // it is read; the replay refuses too many scans or pixels before decoding.
            let bytes: [UInt8]
            do {
                let absolute = FilePath.join(FileManager.default.currentDirectoryPath, file)
                bytes = try Directory.readFile(atPath: absolute, limit: DecodeLimits().maxFileBytes)
            } catch {
                console.error("cannot read '\(file)': \(error.reason)")
                return .ioError
            }
            reports.append(
                replay.replayKeepingFinal(
                    bytes, path: file, firstRung: rung.map { (name: FilePath.name(firstRung!), bytes: $0) }
                ) { _ in [] }.report)
        }
        if json {
            console.write(encodeJSONLine(ReplayOutput(files: reports.map(ReplayJSON.init))))
        } else {
            for report in reports { ReplayText.print(report, console: console, verbose: verbosity == .verbose) }
        }
        return reports.allSatisfy { $0.problems.isEmpty } ? .success : .failure
    }

    /// `--compare`: three versions of each file's coefficients (and, with --candidates, every
    /// candidate script), each replayed and scored.
    private func runComparison(_ console: Console) -> ExitCode {
        var results: [ScanComparisonJSON] = []
        var failed = false
        var screen = ComparisonScreen(displayWidth: replayOptions.displayWidth ?? Defaults.displayWidth)
        if let firstRung {
            guard let data = FileManager.default.contents(atPath: firstRung) else {
                console.error("cannot read '\(firstRung)'")
                return .ioError
            }
            screen.firstRung = [UInt8](data)
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                console.error(
                    "cannot read '\(file)': \(FileManager.default.fileExists(atPath: file) ? "permission denied" : "no such file")"
                )
                return .ioError
            }
            let bytes = [UInt8](data)
            do {
                var versions = try ScanComparison.compare(
                    bytes, scans: replayOptions.expectedScans ?? 5, screen: screen)
                if candidates {
                    versions += try ScanComparison.candidates(
                        bytes, scans: replayOptions.expectedScans ?? 5,
                        firstPictureBudget: replayOptions.firstPaintBudget, screen: screen)
                }
                results.append(ScanComparisonJSON(path: file, versions: versions, error: nil))
            } catch {
                failed = true
                results.append(ScanComparisonJSON(path: file, versions: [], error: error.reason))
            }
        }
        if json {
            console.write(encodeJSONLine(ScanComparisonOutput(files: results)))
        } else {
            for result in results { ScanComparisonText.print(result, console: console) }
        }
        return failed ? .failure : .success
    }
}
