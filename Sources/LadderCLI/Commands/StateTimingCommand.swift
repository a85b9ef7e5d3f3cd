import Foundation
import LadderCore

/// `ladder __state-timing [--config PATH] [--rounds N]` (hidden, for scripts/bench-store): times
/// loading the build state a no-op build reads (the stat cache and the previous manifest) from
/// `.ladder/`, N times in this process. Prints one JSON object with the wall and CPU seconds of
/// each round.
struct StateTimingCommand: LadderCommand {
    static let name = "__state-timing"
    static let summary = "Time loading the build state (for scripts/bench-store)."
    static let synopsis = "[--config PATH] [--rounds N]"
    static let discussion = "Used by scripts/bench-store to compare the build-state store with SQLite."
    static let options = [
        .config, OptionSpec(names: ["--rounds"], value: "N", help: "Loads to time.", defaultText: "5"),
    ]
    static let exitCodes: [(ExitCode, String)] = [(.success, "timed"), (.ioError, "the state cannot be read")]

    var configPath = "pipeline.json"
    var rounds = 5

    init(parsing options: ParsedOptions) throws(UsageError) {
        configPath = options.value("--config") ?? configPath
        rounds = try options.integer("--rounds", in: 1...1000, command: Self.name) ?? rounds
    }

    struct TimingLine: Encodable {
        var statEntries: Int
        var images: Int
        var fromSnapshot: Bool
        var loadSeconds: [Double]
        var cpuSeconds: [Double]
    }

    func run(_ context: CommandContext) -> ExitCode {
        let configuration: PipelineConfiguration
        switch preparePipeline(configPath, console: context.console, startImaging: false) {
        case .success(let loaded): configuration = loaded
        case .failure(let code): return code
        }
        do {
            let loads = try (0..<rounds).map { _ in try BuildStateTiming.load(configuration) }
            context.console.write(
                encodeJSONLine(
                    TimingLine(
                        statEntries: loads[0].statEntries, images: loads[0].images, fromSnapshot: loads[0].fromSnapshot,
                        loadSeconds: loads.map(\.seconds), cpuSeconds: loads.map(\.cpuSeconds))))
            return .success
        } catch {
            context.console.error("\(error)")
            return .ioError
        }
    }
}
