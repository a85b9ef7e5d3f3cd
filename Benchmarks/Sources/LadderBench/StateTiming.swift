import Foundation
import LadderCore

/// `ladder-bench state-timing [--config PATH] [--rounds N]` (for scripts/bench-store): times
/// loading the build state a no-op build reads (the stat cache and the previous manifest) from
/// `.ladder/`, N times in this process. Prints one JSON object with the wall and CPU seconds of
/// each round.
struct StateTiming {
    var configPath = "pipeline.json"
    var rounds = 5

    struct TimingLine: Encodable {
        var statEntries: Int
        var images: Int
        var fromSnapshot: Bool
        var loadSeconds: [Double]
        var cpuSeconds: [Double]
    }

    func run() -> Int32 {
        let configuration: PipelineConfiguration
        do {
            configuration = try PipelineConfiguration.load(from: configPath)
        } catch {
            printError(error.description)
            return 65
        }
        do {
            let loads = try (0..<rounds).map { _ in try BuildStateTiming.load(configuration) }
            printJSONLine(
                TimingLine(
                    statEntries: loads[0].statEntries, images: loads[0].images, fromSnapshot: loads[0].fromSnapshot,
                    loadSeconds: loads.map(\.seconds), cpuSeconds: loads.map(\.cpuSeconds)))
            return 0
        } catch {
            printError("\(error)")
            return 74
        }
    }
}
