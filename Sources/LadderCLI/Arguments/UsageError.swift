/// A command line ladder cannot run: what is wrong, and where to read how it goes.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The command whose help explains the right usage, for the hint ("build", or nil for ladder).
    package var command: String?

    package init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }

    package var description: String {
        message + "; see 'ladder\(command.map { " \($0)" } ?? "") --help'"
    }
}
