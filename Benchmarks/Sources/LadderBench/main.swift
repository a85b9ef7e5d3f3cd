import Foundation
import LadderCore
import LadderImaging
import LadderResearch

// ladder-bench: the timing and research commands that scripts/ runs, kept out of the shipped
// ladder executable.

let usage = """
    USAGE: ladder-bench <command> [options]

    COMMANDS:
      floor FILE...                          time the unavoidable work per file (scripts/bench)
      replay-timing FILE... [--rounds N]     time replays against one-shot decodes (scripts/replay-bench)
      state-timing [--config PATH] [--rounds N]
                                             time loading the build state (scripts/bench-store)
      verify-floor --sha1 LIST --sha256 LIST --decode LIST --parse LIST [--jobs N]
                                             time the work ladder verify cannot avoid, through its
                                             libraries alone, on the files listed (scripts/verify-floor)
      scan-oracle FILE...                    the best of every valid 5-scan script for each color
                                             JPEG, beside the file as it is and libjpeg's default
                                             progression, as JSON lines (scripts/scan-scripts)

    """

func printJSONLine<T: Encodable>(_ value: T) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let data = try? encoder.encode(value) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("ladder-bench: \(message)\n".utf8))
}

/// The value after `name` in `arguments`, removed from them.
func option(_ name: String, in arguments: inout [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, command != "--help", command != "-h" else {
    print(usage, terminator: "")
    exit(arguments.isEmpty ? 64 : 0)
}
arguments.removeFirst()
do {
    try Imaging.start(threadsPerImage: 1)
} catch {
    printError("\(error)")
    exit(74)
}
switch command {
case "floor":
    exit(Floor.run(arguments))
case "replay-timing":
    let rounds = option("--rounds", in: &arguments).flatMap(Int.init) ?? 7
    exit(ReplayTiming(files: arguments, rounds: rounds).run())
case "state-timing":
    let config = option("--config", in: &arguments) ?? "pipeline.json"
    let rounds = option("--rounds", in: &arguments).flatMap(Int.init) ?? 5
    exit(StateTiming(configPath: config, rounds: rounds).run())
case "verify-floor":
    exit(VerifyFloor.run(arguments))
case "scan-oracle":
    exit(ScanOracle.run(arguments))
default:
    printError("unknown command '\(command)'")
    print(usage, terminator: "")
    exit(64)
}
