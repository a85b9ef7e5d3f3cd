import Foundation
import LadderCLI
import Testing

/// Every `ladder COMMAND --help` tells the truth: each option it lists (in its usage line or its
/// OPTIONS table) is accepted by that command, with a value exactly when the help shows one, and
/// each option the command accepts is in its OPTIONS table. The commands come from ladder
/// itself, so a command or an option added later is covered without touching this file.
@Suite("Help tells the truth")
struct HelpTruthTests {
    /// An option as a help text shows it: its spelling and its value's placeholder, if any.
    struct ListedOption: Hashable, CustomStringConvertible {
        var name: String
        var placeholder: String?
        var description: String { name + (placeholder.map { " \($0)" } ?? "") }
    }

    @Test("ladder knows its commands, and ladder --help lists every one that is not hidden")
    func commandsAreListed() {
        let names = Ladder.commandNames
        #expect(names.count >= 6)
        let help = runLadder(["--help"]).output
        for name in names where !name.hasPrefix("__") {
            #expect(help.contains("\n  \(name) "), "ladder --help lists \(name)")
        }
    }

    @Test("an option no command has is refused as unknown (the oracle the other tests rely on)")
    func unknownIsRefused() {
        for command in Ladder.commandNames {
            let result = runLadder([command, "--no-such-option"])
            #expect(result.code == .usage, "\(command)")
            #expect(result.error.contains("unknown option '--no-such-option'"), "\(command): \(result.error)")
        }
    }

    @Test("every option a command's --help lists is accepted, with a value exactly when shown")
    func listedOptionsAreAccepted() throws {
        let folder = TemporaryDirectory()
        for command in Ladder.commandNames {
            let help = runLadder([command, "--help"])
            #expect(help.code == .success, "\(command) --help")
            let listed = Self.listedOptions(in: help.output)
            #expect(listed.contains { $0.name == "--help" }, "\(command) --help lists options at all")
            for option in listed {
                let arguments = Self.arguments(trying: option, on: command, in: folder)
                let result = runLadder(arguments)
                #expect(
                    !result.error.contains("unknown option"),
                    "'ladder \(command) --help' lists \(option), which ladder \(command) rejects: \(result.error)")
                #expect(
                    !result.error.contains("needs a value") && !result.error.contains("takes no value"),
                    "'ladder \(command) --help' shows \(option) with the wrong value: \(result.error)")
            }
        }
    }

    @Test("every option a command accepts is in its --help OPTIONS table")
    func acceptedOptionsAreListed() throws {
        for command in Ladder.commandNames {
            let accepted = try #require(Ladder.acceptedOptions(of: command), "\(command)")
            #expect(accepted.contains("--help"))
            let table = Set(Self.optionsTable(in: runLadder([command, "--help"]).output).map(\.name))
            for name in accepted {
                #expect(table.contains(name), "ladder \(command) accepts \(name), but its --help does not list it")
            }
            // And what the table lists is what is accepted, nothing more.
            for name in table {
                #expect(accepted.contains(name), "ladder \(command) --help lists \(name), which it does not accept")
            }
        }
        #expect(Ladder.acceptedOptions(of: "no-such-command") == nil)
    }

    @Test("replay --help no longer lists verify's --profile and --frames")
    func replayHelp() {
        let listed = Self.listedOptions(in: runLadder(["replay", "--help"]).output).map(\.name)
        #expect(!listed.contains("--profile"))
        #expect(!listed.contains("--frames"))
        #expect(listed.contains("--chunk"))
    }

    // MARK: - Reading help texts

    /// The options in the usage line and in the OPTIONS table.
    static func listedOptions(in help: String) -> Set<ListedOption> {
        let usage = help.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return Set(options(inWords: usage) + optionsTable(in: help))
    }

    /// The options of the OPTIONS table: each row's label, up to the gap before its help.
    static func optionsTable(in help: String) -> [ListedOption] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "OPTIONS:") else { return [] }
        var found: [ListedOption] = []
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("  ") else { break }
            let trimmed = line.drop { $0 == " " }
            let label = trimmed.range(of: "  ").map { String(trimmed[..<$0.lowerBound]) } ?? String(trimmed)
            found += options(inWords: label)
        }
        return found
    }

    /// Options in a run of words such as "[--config PATH] [--quiet | --verbose]" or
    /// "--jobs, -j N": an option's placeholder is the upper-case word after its spellings.
    static func options(inWords text: String) -> [ListedOption] {
        // "]" stays a word of its own: a placeholder belongs to the option in its brackets.
        let words = text.replacingOccurrences(of: "]", with: " ] ").split { " [(),|".contains($0) }.map(String.init)
        var found: [ListedOption] = []
        var pending: [String] = []
        func isOption(_ word: String) -> Bool {
            word.count > 1 && word.hasPrefix("-") && word.dropFirst().first.map { $0 == "-" || $0.isLetter } == true
                && !word.hasSuffix("...")
        }
        func isPlaceholder(_ word: String) -> Bool {
            word.first?.isUppercase == true && word.allSatisfy { $0.isUppercase || $0.isNumber || "/_-".contains($0) }
        }
        for word in words {
            if isOption(word) {
                pending.append(word)
            } else {
                let placeholder = isPlaceholder(word) ? word : nil
                found += pending.map { ListedOption(name: $0, placeholder: placeholder) }
                pending = []
            }
        }
        found += pending.map { ListedOption(name: $0, placeholder: nil) }
        return found
    }

    /// A command line that gives `option` to `command` and then fails fast without touching
    /// anything: a pipeline.json or a file that does not exist.
    static func arguments(trying option: ListedOption, on command: String, in folder: TemporaryDirectory) -> [String] {
        let absent = folder.path("absent")
        var arguments = [command, option.name]
        if let placeholder = option.placeholder {
            switch placeholder {
            case "PATH", "FILE", "DIR", "FILE.jpg": arguments.append(absent + "/" + placeholder.lowercased())
            case "K/N": arguments.append("1/1")
            case "SHARE": arguments.append("0.5")
            default: arguments.append("1")
            }
        }
        let accepted = Ladder.acceptedOptions(of: command) ?? []
        if accepted.contains("--config") {
            if option.name != "--config" && option.name != "-c" {
                arguments += ["--config", absent + "/pipeline.json"]
            }
        } else {
            arguments.append(absent + "/source.jpg")
        }
        return arguments
    }
}
