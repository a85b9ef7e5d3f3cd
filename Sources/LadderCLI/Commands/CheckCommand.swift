import Foundation
import LadderCore
import LadderImaging
import LadderManifest

/// `ladder check`: a preflight that says, before a build, what will not come out as expected.
struct CheckCommand: LadderCommand {
    static let name = "check"
    static let summary = "Say what is wrong with the sources before building, and how to fix it."
    static let synopsis = "[--config PATH] [--json] [--strict] [--jobs N] [FILE...]"
    static let discussion = """
        Reads every source the pipeline would build (or only the FILEs given, as a pre-commit
        hook passes staged images), decodes it under the pipeline's limits, and reports for each
        one what a designer can act on, with a fix: files that cannot be built (not an image,
        damaged or truncated, over a limit) as errors; and as warnings, what makes a variant
        come out otherwise than expected: images smaller than the largest variant (they are not
        upscaled) or than every variant, CMYK or wide-gamut color (converted to sRGB),
        transparency (flattened on the background color), animations (first frame only),
        identical files under several names, and extensions that name another format than the
        content. When the pipeline has been built, it also says what the format siblings of
        the last build save against their JPEG rungs, per variant and in total. Personal data that the original carries and the variants do not (a GPS
        position; names of creators, copyright holders, people or places in EXIF, IPTC or XMP;
        the camera's serial number) is info: which fields, never their values. Nothing is
        written.
        """
    static let options = [
        .config,
        OptionSpec(names: ["--json"], help: "Print the findings as one JSON object on standard output."),
        OptionSpec(
            names: ["--strict"], help: "Report personal data in the originals as warnings, not info."),
        .jobs("Sources checked at once."),
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "no source has an error (there may be warnings)"),
        (.failure, "some sources cannot be built"),
        (.usage, "unknown option or bad option value"),
        (.invalidConfiguration, "pipeline.json is invalid"),
        (.ioError, "a source folder cannot be read"),
    ]

    var configPath = "pipeline.json"
    var json = false
    var strict = false
    var jobs = Defaults.jobs
    var files: [String]?
    var verbosity = Verbosity.normal

    init(parsing options: ParsedOptions) throws(UsageError) {
        configPath = options.value("--config") ?? configPath
        json = options.has("--json")
        strict = options.has("--strict")
        jobs = try options.integer("--jobs", in: 1...1024, command: Self.name) ?? jobs
        files = options.positional.isEmpty ? nil : options.positional
        verbosity = try Verbosity(options, command: Self.name)
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        let configuration: PipelineConfiguration
        // This process never decodes: only the render workers start libvips.
        switch preparePipeline(configPath, console: console, startImaging: false) {
        case .success(let loaded): configuration = loaded
        case .failure(let code): return code
        }
        let progress = BuildProgress(console: console, verbosity: verbosity, verb: "checked")
        let workers = context.rendering.workerPool(limits: configuration.limits, jobs: jobs)
        defer { workers.shutdown() }

        let report: PreflightReport
        do {
            report = try Preflight(
                configuration: configuration, workers: workers, observer: progress, jobs: jobs, strict: strict
            ).run(paths: files)
        } catch {
            progress.finish()
            console.error(error.description)
            return .ioError
        }
        progress.finish()
        // What the format siblings of the last build save, when there is one.
        let savings = (try? Data(contentsOf: URL(fileURLWithPath: configuration.manifestPath)))
            .flatMap { try? Manifest(jsonData: $0) }.map(FormatSavings.init)
        if json {
            var object = CheckJSON(report)
            object.formats = savings.flatMap { $0.isEmpty ? nil : CheckJSON.Formats($0) }
            console.write(encodeJSONLine(object))
        } else {
            printFindings(report, console: console)
            if let savings, !savings.isEmpty {
                console.print("format siblings of the last build (\(displayPath(configuration.manifestPath))):")
                for line in savings.lines(bytes: ReportPage.bytes) { console.print("  " + line) }
            }
        }
        return report.errorCount == 0 ? .success : .failure
    }

    private func printFindings(_ report: PreflightReport, console: Console) {
        for file in report.files {
            let shown = file.findings.filter { verbosity != .quiet || $0.severity == .error }
            guard !shown.isEmpty else { continue }
            console.print(console.styledOutput(file.path, .bold))
            for finding in shown {
                let label =
                    switch finding.severity {
                    case .error: console.styledOutput("error", .red)
                    case .warning: console.styledOutput("warning", .yellow)
                    case .info: console.styledOutput("info", .dim)
                    }
                console.print("  \(label): \(finding.message)")
                console.print("    fix: \(finding.fix)")
            }
        }
        let errors = report.errorCount
        let warnings = report.warningCount
        let infos = report.infoCount
        var line = "\(report.sources) source\(report.sources == 1 ? "" : "s") checked: "
        if errors + warnings + infos == 0 {
            line += console.styledOutput("nothing to fix", .green)
        } else {
            line += "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            if infos > 0 { line += ", \(infos) info" }
            line += " in \(report.files.count) file\(report.files.count == 1 ? "" : "s")"
        }
        console.print(line)
    }
}

/// The `ladder check --json` object.
struct CheckJSON: Encodable {
    struct File: Encodable {
        var path: String
        var findings: [Item]
    }

    struct Item: Encodable {
        var severity: String
        var kind: String
        var message: String
        var fix: String
    }

    var ok: Bool
    var sources: Int
    var errors: Int
    var warnings: Int
    /// Findings of severity "info" (personal data in the originals).
    var info: Int
    var files: [File]
    /// What the last build's format siblings save, by variant and format, and in total.
    var formats: Formats?

    struct Formats: Encodable {
        struct Saving: Encodable {
            var siblings: Int
            var rungs: Int
            var jpegBytes: Int
            var bytes: Int
            var savedBytes: Int
            var savedShare: Double
        }

        var variants: [String: [String: Saving]]
        var total: [String: Saving]

        init(_ savings: FormatSavings) {
            func encode(_ byFormat: [SiblingFormat: FormatSavings.Saving]) -> [String: Saving] {
                Dictionary(
                    uniqueKeysWithValues: byFormat.map {
                        (
                            $0.key.rawValue,
                            Saving(
                                siblings: $0.value.siblings, rungs: $0.value.rungs, jpegBytes: $0.value.jpegBytes,
                                bytes: $0.value.servedBytes, savedBytes: $0.value.savedBytes,
                                savedShare: ($0.value.savedShare * 10_000).rounded() / 10_000)
                        )
                    })
            }
            variants = savings.byVariant.mapValues(encode)
            total = encode(savings.total)
        }
    }

    init(_ report: PreflightReport) {
        ok = report.errorCount == 0
        sources = report.sources
        errors = report.errorCount
        warnings = report.warningCount
        info = report.infoCount
        files = report.files.map { file in
            File(
                path: file.path,
                findings: file.findings.map {
                    Item(severity: $0.severity.rawValue, kind: $0.kind.rawValue, message: $0.message, fix: $0.fix)
                })
        }
    }
}
