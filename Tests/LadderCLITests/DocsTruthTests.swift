import Foundation
import LadderCLI
import Testing

/// The reference in docs/ stays true to the program: every option a command accepts is
/// documented under that command, every option its synopsis or options table shows is accepted,
/// and every relative link in the README and docs/ leads to a file and heading that exist.
@Suite("Docs tell the truth")
struct DocsTruthTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ relative: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The documentation of `command`: its section of docs/COMMANDS.md (from its `## \`ladder
    /// NAME\`` heading to the next `## `), or the file given to it alone.
    static func section(for command: String) throws -> String? {
        if command == "verify" { return try read("docs/VERIFY.md") }
        let lines = try read("docs/COMMANDS.md").components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "## `ladder \(command)`") else { return nil }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    /// The options a section shows as the command's own: in its synopsis code blocks and in the
    /// first column of its tables.
    static func shownOptions(in section: String) -> Set<String> {
        var shown: Set<String> = []
        var inCode = false
        for line in section.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                inCode.toggle()
                continue
            }
            let place: Substring
            if inCode, line.hasPrefix("ladder ") {
                place = Substring(line)
            } else if line.hasPrefix("| `-") {
                place = line.dropFirst().prefix { $0 != "|" }
            } else {
                continue
            }
            for token in place.split(whereSeparator: { " `[],|.".contains($0) }) where token.hasPrefix("-") {
                shown.insert(String(token))
            }
        }
        return shown
    }

    @Test("every command's options are documented under it, and what the docs show is accepted")
    func optionsAreDocumented() throws {
        let common: Set<String> = ["--help", "-h", "--quiet", "-q", "--verbose", "-v"]
        var documented = 0
        for command in Ladder.commandNames where !command.hasPrefix("__") {
            let section = try #require(try Self.section(for: command), "docs document ladder \(command)")
            let accepted = Set(try #require(Ladder.acceptedOptions(of: command)))
            for option in accepted.subtracting(common) {
                documented += 1
                #expect(
                    section.contains("`\(option)") || section.contains(" \(option)"),
                    "the docs of ladder \(command) leave out \(option)")
            }
            for option in Self.shownOptions(in: section) {
                #expect(
                    accepted.contains(option), "the docs of ladder \(command) show \(option), which it does not accept")
            }
        }
        #expect(documented > 20, "options were checked")
    }

    /// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped,
    /// spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
            }
        ).replacingOccurrences(of: " ", with: "-")
    }

    static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = []
        var inCode = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, line.hasPrefix("#") else { continue }
            let heading = line.drop { $0 == "#" }
            guard heading.first == " " else { continue }
            anchors.insert(anchor(heading.trimmingCharacters(in: .whitespaces)))
        }
        return anchors
    }

    @Test("every relative link in the README and docs/ leads to a file and a heading that exist")
    func linksResolve() throws {
        let fileManager = FileManager.default
        let docs = try fileManager.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var links = 0
        for page in ["README.md", "examples/README.md", "examples/app/README.md"] + docs {
            guard fileManager.fileExists(atPath: Self.repository.appendingPathComponent(page).path) else { continue }
            let text = try Self.read(page).replacingOccurrences(
                of: #"```[\s\S]*?```"#, with: "", options: .regularExpression)
            let expression = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let link = String(text[range])
                if link.contains("://") || link.hasPrefix("mailto:") { continue }
                links += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let folder = (page as NSString).deletingLastPathComponent
                let target =
                    parts[0].isEmpty
                    ? page
                    : ((folder as NSString).appendingPathComponent(String(parts[0])) as NSString)
                        .standardizingPath
                let url = Self.repository.appendingPathComponent(target)
                #expect(fileManager.fileExists(atPath: url.path), "\(page) links to \(link), which does not exist")
                if parts.count == 2, target.hasSuffix(".md"), fileManager.fileExists(atPath: url.path) {
                    #expect(
                        Self.anchors(in: try Self.read(target)).contains(String(parts[1])),
                        "\(page) links to \(link), a heading \(target) does not have")
                }
            }
        }
        #expect(links > 30, "links were checked")
    }
}
