extension Ladder {
    /// Every command's name, hidden ones last, in the order `ladder --help` lists them.
    public static var commandNames: [String] { (commands + hiddenCommands).map { $0.name } }

    /// Every spelling `ladder COMMAND` accepts as an option, read from the table that both its
    /// parser and its `--help` use; nil for a command ladder does not have.
    public static func acceptedOptions(of command: String) -> [String]? {
        (commands + hiddenCommands).first { $0.name == command }.map { $0.acceptedOptions.flatMap(\.names) }
    }
}

extension LadderCommand {
    /// The options a command accepts and lists in its `--help`: its own and the common ones.
    static var acceptedOptions: [OptionSpec] { options + commonOptions }
}
