import Foundation
import Synchronization

/// Where a command writes: results to `standardOutput`, diagnostics and progress to
/// `standardError`. Tests pass a console that records both.
///
/// A result that cannot be written (a closed pipe, a full disk) is remembered, not ignored:
/// `outputFailure` says why, and the command then exits 74 instead of reporting success.
package final class Console: Sendable {
    /// Writes to standard output; returns 0, or the errno of a failed write.
    private let writeOutput: @Sendable (String) -> Int32
    private let failure = Mutex<String?>(nil)
    private let writeError: @Sendable (String) -> Void
    /// True when standard error is a terminal: progress lines are drawn only there.
    package let errorIsTerminal: Bool
    /// True when diagnostics may use color (standard error is a terminal, and NO_COLOR is not set).
    package let usesColor: Bool
    /// True when results may use color (standard output is a terminal, and NO_COLOR is not set).
    package let outputUsesColor: Bool

    package convenience init(
        errorIsTerminal: Bool, usesColor: Bool, outputUsesColor: Bool = false,
        output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void
    ) {
        self.init(
            errorIsTerminal: errorIsTerminal, usesColor: usesColor, outputUsesColor: outputUsesColor,
            writingOutput: { text in
                output(text)
                return 0
            }, error: error)
    }

    /// A console whose standard output can fail: `writingOutput` returns 0, or the errno of a
    /// failed write.
    package init(
        errorIsTerminal: Bool, usesColor: Bool, outputUsesColor: Bool = false,
        writingOutput: @escaping @Sendable (String) -> Int32, error: @escaping @Sendable (String) -> Void
    ) {
        self.errorIsTerminal = errorIsTerminal
        self.usesColor = usesColor
        self.outputUsesColor = outputUsesColor
        self.writeOutput = writingOutput
        self.writeError = error
    }

    /// Why a result could not be written to standard output ("No space left on device"...), or
    /// nil while every write has succeeded. After a failure, nothing more is written there.
    package var outputFailure: String? { failure.withLock { $0 } }

    /// The process's own standard output and standard error. Color is used only on a terminal,
    /// and never when NO_COLOR is set to anything but the empty string (no-color.org).
    package static func standard(
        environment: [String: String]? = nil, isTerminal: ((Int32) -> Bool)? = nil
    ) -> Console {
        let isTerminal: (Int32) -> Bool = isTerminal ?? { isatty($0) == 1 }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let errorIsTerminal = isTerminal(STDERR_FILENO)
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        // A reader that closed the pipe must give EPIPE, which is reported, not a silent death.
        signal(SIGPIPE, SIG_IGN)

        return Console(
            errorIsTerminal: errorIsTerminal, usesColor: errorIsTerminal && !noColor,
            outputUsesColor: isTerminal(STDOUT_FILENO) && !noColor,
            writingOutput: { writeAll($0, to: STDOUT_FILENO) },
            error: { _ = writeAll($0, to: STDERR_FILENO) })
    }

    /// Writes a result line to standard output.
    package func print(_ line: String) { write(line + "\n") }

    /// Writes raw text to standard output, unless an earlier write failed.
    package func write(_ text: String) {
        failure.withLock { failure in
            guard failure == nil else { return }
            let code = writeOutput(text)
            if code != 0 { failure = String(cString: strerror(code)) }
        }
    }

    /// Writes a diagnostic line to standard error.
    package func diagnose(_ line: String) { writeError(line + "\n") }

    /// Writes raw text to standard error (progress lines).
    package func writeDiagnostic(_ text: String) { writeError(text) }

    /// "error: ..." in red on a color terminal.
    package func error(_ message: String) {
        diagnose(styled("error:", .red) + " " + message)
    }

    /// "warning: ..." in yellow on a color terminal.
    package func warning(_ message: String) {
        diagnose(styled("warning:", .yellow) + " " + message)
    }

    enum Style: String {
        case red = "31"
        case yellow = "33"
        case green = "32"
        case bold = "1"
        case dim = "2"
    }

    /// `text` in `style` for standard error, when it may use color.
    func styled(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// `text` in `style` for standard output, when it may use color.
    func styledOutput(_ text: String, _ style: Style) -> String {
        outputUsesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

}

/// Writes the whole text to a file descriptor, unbuffered, so that progress and results
/// interleave in the order they were written. Returns 0, or the errno of the failed write.
private func writeAll(_ text: String, to descriptor: Int32) -> Int32 {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let count = bytes.withUnsafeBytes { Platform.write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        bytes = bytes.dropFirst(count)
    }
    return 0
}
