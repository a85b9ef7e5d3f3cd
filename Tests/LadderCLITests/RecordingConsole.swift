import LadderCLI
import Synchronization

/// A console that records what is written, for tests.
final class RecordingConsole: Sendable {
    private let storage = Mutex<(output: String, error: String)>(("", ""))

    init() {}

    var console: Console {
        Console(
            errorIsTerminal: false, usesColor: false,
            output: { [self] text in storage.withLock { $0.output += text } },
            error: { [self] text in storage.withLock { $0.error += text } })
    }

    var output: String { storage.withLock { $0.output } }
    var error: String { storage.withLock { $0.error } }
}
