import Foundation
import LadderCore
import Synchronization

/// Shows a build's progress: on a terminal, one line redrawn in place (done/total, rate, ETA);
/// elsewhere nothing until the summary. Warnings always go to standard error unless --quiet.
final class BuildProgress: BuildObserving {
    private struct State {
        var total = 0
        var done = 0
        var started = Date()
        var lastDrawn = Date.distantPast
        var lineShown = false
    }

    private let console: Console
    private let verbosity: Verbosity
    /// What --verbose says of a source that went well: "built", "checked".
    private let verb: String
    private let state = Mutex(State())

    init(console: Console, verbosity: Verbosity, verb: String = "built") {
        self.console = console
        self.verbosity = verbosity
        self.verb = verb
    }

    private var drawsLine: Bool { console.errorIsTerminal && verbosity != .quiet }

    func buildStarted(total: Int) {
        state.withLock {
            $0.total = total
            $0.started = Date()
        }
    }

    func sourceFinished(_ path: String, outcome: SourceOutcome) {
        state.withLock { state in
            state.done += 1
            if verbosity == .verbose {
                clearLine(&state)
                switch outcome {
                case .built: console.diagnose("\(verb) \(path)")

                case .upToDate: console.diagnose("up to date \(path)")
                case .failed(let reason): console.diagnose("failed \(path): \(reason)")
                case .inOtherShard: console.diagnose("left to another shard \(path)")
                }

            }
            let now = Date()
            guard drawsLine, now.timeIntervalSince(state.lastDrawn) >= 0.1 || state.done == state.total else { return }
            state.lastDrawn = now
            let elapsed = now.timeIntervalSince(state.started)
            let rate = elapsed > 0 ? Double(state.done) / elapsed : 0
            var line = "[\(state.done)/\(state.total)]"
            if rate > 0 {
                line += String(format: " %.1f images/s", rate)
                let remaining = Double(state.total - state.done) / rate
                line += ", ETA " + Self.duration(remaining)
            }
            line += "  " + path
            // Keep the line within a typical terminal width so it redraws in place.
            if line.count > 100 { line = String(line.prefix(99)) + "…" }
            console.writeDiagnostic("\r\u{1B}[K" + line)
            state.lineShown = true
        }
    }

    func warning(_ message: String) {
        guard verbosity != .quiet else { return }
        state.withLock { state in
            clearLine(&state)
            console.warning(message)
        }
    }

    /// Removes the progress line before the summary.
    func finish() {
        state.withLock { clearLine(&$0) }
    }

    private func clearLine(_ state: inout State) {
        if state.lineShown {
            console.writeDiagnostic("\r\u{1B}[K")
            state.lineShown = false
        }
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600
            ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%d:%02d", total / 60, total % 60)
    }
}
