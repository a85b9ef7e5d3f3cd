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
}
