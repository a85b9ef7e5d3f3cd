import LadderCore
import Testing

/// Inputs that libFuzzer found to crash a parser (scripts/fuzz), kept as regression tests: each
/// input is the crashing one, or the smallest that shows the same fault.
@Suite("Fuzz findings")
struct FuzzFindingsTests {
    /// FuzzGlob: a `{` inside a character set passed the syntax check (which reads it as a
    /// character of the set), then brace expansion looked for its `}` and cut an inverted range.
    @Test("a brace inside a character set is a character of the set, not a group")
    func braceInsideSet() throws {
        let found: [UInt8] = [0x2A, 0x2E, 0x74, 0x6D, 0x5B, 0x7B, 0x92, 0xDE, 0x5D]  // "*.tm[{\x92\xde]"
        let glob = try Glob(String(decoding: found, as: UTF8.self))
        #expect(glob.matches("notes.tm{"))
        #expect(!glob.matches("notes.tmp"))

        #expect(try Glob("file[{].jpg").matches("file{.jpg"))
        #expect(try Glob("file[}].jpg").matches("file}.jpg"))
        // A comma inside a set inside a group belongs to the set, not to the list of alternatives.
        let group = try Glob("{[,]x,y}.jpg")
        #expect(group.matches(",x.jpg"))
        #expect(group.matches("y.jpg"))
        #expect(!group.matches("].jpg"))
    }

    /// A start-of-scan segment with a length of 2 (no payload) at the very end of the file: the
    /// walker read its component count one byte past the end and crashed, taking `ladder verify`
    /// and `ladder replay` with it.
    @Test("an empty start-of-scan segment at the end of the file is refused, not read past")
    func emptyScanHeaderAtEnd() throws {
        let file: [UInt8] = [
            0xFF, 0xD8,  // SOI
            0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00,  // SOF0, 1x1, 1 component
            0xFF, 0xDA, 0x00, 0x02,  // SOS of length 2, then nothing
        ]
        let error = #expect(throws: JPEGStructure.ParseError.self) { try JPEGStructure(parsing: file) }
        #expect(error?.reason == "malformed start-of-scan segment")
        #expect(error?.offset == 15)
        let report = ProgressiveReplay().replay(file, path: "empty-scan.jpg")
        #expect(report.problems.map(\.kind.rawValue) == ["malformed"])
    }

    /// FuzzGlob: every `*` and `**` tried every split of the rest of the path, again for each
    /// earlier split, so a pattern of many stars took exponential time on a path of many
    /// segments (this input: more than 10 s; the pattern below, hours), stalling a build that
    /// matches it against every file.
    @Test("many stars match in time proportional to pattern x path", .timeLimit(.minutes(1)))
    func manyStars() throws {
        let found: [UInt8] = [
            0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x69, 0x2F,
            0x2A, 0x0A, 0x00, 0x2F, 0x2F, 0x2F, 0x2A, 0x2A, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A,
            0x64, 0x2B, 0x2C, 0x2F, 0x2F, 0x2F, 0x2F, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x69, 0x2F,
            0x2A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A, 0x64, 0x2B, 0x2C, 0x2F, 0x2F, 0x2F,
            0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2A, 0x69, 0x2F, 0x2A, 0x0A, 0x00, 0x2F, 0x2F, 0x2F, 0x2A,
            0x2A, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A, 0x64, 0x2B, 0x2C, 0x2F, 0x2F, 0x2F, 0x2F,
            0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x2A, 0x69, 0x2F, 0x2A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x2A, 0x64, 0x2B, 0x2C, 0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2F, 0x2A,
            0x2A,
        ]
        let newline = found.firstIndex(of: 0x0A)!
        let glob = try Glob(String(decoding: found[..<newline], as: UTF8.self))
        #expect(!glob.matches(String(decoding: found[(newline + 1)...], as: UTF8.self)))

        let deep = try Glob(String(repeating: "**/", count: 12) + "*x")
        let path = String(repeating: "a/", count: 60)
        #expect(!deep.matches(path + "y"))
        #expect(deep.matches(path + "yx"))
        let stars = try Glob(String(repeating: "*a", count: 20) + "b")
        #expect(!stars.matches(String(repeating: "a", count: 200)))
        #expect(stars.matches(String(repeating: "a", count: 200) + "b"))
    }

    /// Brace groups multiply: twenty `{a,b}` would expand to a million patterns held in memory.
    @Test("a glob that expands to more than 1024 patterns is refused with the reason")
    func braceExpansionLimit() throws {
        let allowed = try Glob(String(repeating: "{a,b}", count: 10))
        #expect(allowed.matches("abababbbba"))
        #expect(!allowed.matches("abababbbbc"))
        let error = #expect(throws: Glob.SyntaxError.self) { try Glob(String(repeating: "{a,b}", count: 11)) }
        #expect(error?.reason == "its {...} groups give more than 1024 patterns")
    }
}
