extension Ladder {
    /// Every command's name, internal ones included.
    package static var commandNames: [String] { commands.map { $0.name } }

    /// Every spelling `ladder COMMAND` accepts as an option, read from the table that both its
    /// parser and its `--help` use; nil for a command ladder does not have.
    package static func acceptedOptions(of command: String) -> [String]? {
        commands.first { $0.name == command }.map { $0.acceptedOptions.flatMap(\.names) }
    }
}

extension LadderCommand {
    /// The options a command accepts and lists in its `--help`: its own and the common ones
    /// (only `--help` for an internal command).
    static var acceptedOptions: [OptionSpec] { options + (isInternal ? [commonOptions.last!] : commonOptions) }
}
