import Foundation
import LadderCore
import LadderImaging

/// A subcommand: how it is spelled and documented, how it reads its arguments, and what it does.
protocol LadderCommand: Sendable {
    static var name: String { get }
    /// One line for `ladder --help`.
    static var summary: String { get }
    /// The synopsis after "ladder NAME".
    static var synopsis: String { get }
    /// Paragraphs for `ladder NAME --help`.
    static var discussion: String { get }
    static var options: [OptionSpec] { get }
    static var exitCodes: [(ExitCode, String)] { get }
    /// A command ladder runs for itself (`__render-worker`), not listed by `ladder --help`.
    static var isInternal: Bool { get }

    init(parsing options: ParsedOptions) throws(UsageError)

    func run(_ context: CommandContext) -> ExitCode
}

/// What a command runs with besides its arguments.
struct CommandContext: Sendable {
    var console: Console
    var rendering: Rendering
    /// The process environment (tests pass their own).
    var environment: [String: String]
}

extension LadderCommand {
    static var isInternal: Bool { false }

    /// The options every command has (`--help` last).
    static var commonOptions: [OptionSpec] {
        [
            OptionSpec(names: ["--quiet", "-q"], help: "Print only errors and the result."),
            OptionSpec(names: ["--verbose", "-v"], help: "Also print what happens to every file."),
            OptionSpec(names: ["--help", "-h"], help: "Show this help."),
        ]
    }

    /// The text of `ladder NAME --help`.
    static var help: String {
        var text = "USAGE: ladder \(name) \(synopsis)\n\n\(discussion)\n\nOPTIONS:\n"
        let all = acceptedOptions
        let labels = all.map { spec in
            spec.names.joined(separator: ", ") + (spec.value.map { " \($0)" } ?? "")
        }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (spec, label) in zip(all, labels) {
            var line = "  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + spec.help
            if let defaultText = spec.defaultText { line += " (default: \(defaultText))" }
            text += line + "\n"
        }
        text += "\nEXIT CODES:\n"
        for (code, meaning) in exitCodes {
            text += "  " + "\(code.rawValue)".padding(toLength: 5, withPad: " ", startingAt: 0) + meaning + "\n"
        }
        return text
    }
}

extension OptionSpec {
    /// `--config PATH`, shared by the commands that read pipeline.json.
    static let config = OptionSpec(
        names: ["--config", "-c"], value: "PATH", help: "The pipeline configuration.", defaultText: "pipeline.json")

    /// `--jobs N`.
    static func jobs(_ help: String) -> OptionSpec {
        OptionSpec(names: ["--jobs", "-j"], value: "N", help: help, defaultText: "all cores")
    }
}

/// Loads pipeline.json and, when `startImaging` is set, starts the image libraries: the first
/// steps of every command that works on a pipeline. On failure the error is reported and the
/// exit code returned.
func preparePipeline(
    _ configPath: String, console: Console, startImaging: Bool = true
) -> Result<PipelineConfiguration, ExitCode> {
    let configuration: PipelineConfiguration
    do {
        configuration = try PipelineConfiguration.load(from: configPath)
    } catch {
        console.error(error.description)
        return .failure(.invalidConfiguration)
    }
    guard startImaging else { return .success(configuration) }
    do {
        try Imaging.start(threadsPerImage: 1)
    } catch {
        console.error(error.description)
        return .failure(.ioError)
    }
    return .success(configuration)
}
