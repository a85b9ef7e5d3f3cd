/// A command line ladder cannot run: what is wrong, and where to read how it goes.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The command whose help explains the right usage, for the hint ("build", or nil for ladder).
    public var command: String?

    public init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }

    public var description: String {
        message + "; see 'ladder\(command.map { " \($0)" } ?? "") --help'"
    }
}
