/// One command-line option: its spellings, its value (if it takes one), and its help.
struct OptionSpec: Sendable {
    /// Spellings, long first: ["--jobs", "-j"].
    var names: [String]
    /// The value's placeholder ("N", "PATH"), or nil for a flag.
    var value: String?
    var help: String
    /// The default, as shown in --help.
    var defaultText: String?

    var key: String { names[0] }
}

/// The options given on a command line, after checking them against the command's specs.
struct ParsedOptions: Sendable {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    /// Arguments that are not options, in order.
    private(set) var positional: [String] = []

    /// Parses `arguments` (without the command name), accepting `--name value`, `--name=value`
    /// and `-n value`, and `--` to end the options.
    init(_ arguments: some Collection<String>, specs: [OptionSpec], command: String) throws(UsageError) {
        var remaining = arguments[...]
        var onlyPositional = false
        while let argument = remaining.popFirst() {
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            let name: String
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            guard let spec = specs.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option '\(name)' for 'ladder \(command)'", command: command)
            }
            if let placeholder = spec.value {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError("option '\(name)' needs a value (\(placeholder))", command: command)
                }
                values[spec.key, default: []].append(value)
            } else {
                guard inlineValue == nil else {
                    throw UsageError("option '\(name)' takes no value", command: command)
                }
                flags.insert(spec.key)
            }
        }
    }

    func has(_ key: String) -> Bool { flags.contains(key) }

    /// The last value given for `key` (a repeated option's last word wins).
    func value(_ key: String) -> String? { values[key]?.last }

    /// Every value given for a repeatable option, in order.
    func values(_ key: String) -> [String] { values[key] ?? [] }

    /// The integer value of `key` within `range`, or nil when absent.
    func integer(_ key: String, in range: ClosedRange<Int>, command: String) throws(UsageError) -> Int? {
        guard let text = value(key) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "option '\(key)' expects a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                command: command)
        }
        return number
    }
}
