/// The process exit codes, as ladder's contract fixes them (BSD sysexits where one fits).
package struct ExitCode: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything was built, or everything holds.
    package static let success = ExitCode(rawValue: 0)
    /// Some sources failed (the rest are built), or verify found a problem.
    package static let failure = ExitCode(rawValue: 1)
    /// Unknown flag or subcommand, or a flag without its value (EX_USAGE).
    package static let usage = ExitCode(rawValue: 64)
    /// pipeline.json is invalid (EX_DATAERR).
    package static let invalidConfiguration = ExitCode(rawValue: 65)
    /// Reading or writing failed, for example a full disk; the previous manifest is intact (EX_IOERR).
    package static let ioError = ExitCode(rawValue: 74)
    /// The output folder is locked by another build and --no-wait was given (EX_TEMPFAIL).
    package static let locked = ExitCode(rawValue: 75)

    package var description: String { "\(rawValue)" }
}
