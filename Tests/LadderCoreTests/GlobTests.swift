import LadderCore
import Testing

@Suite("Globs")
struct GlobTests {
    @Test(
        "patterns match as documented",
        arguments: [
            ("*.jpg", "a.jpg", true),
            ("*.jpg", "deep/down/a.jpg", true),  // no slash: matches the name at any depth
            ("*.jpg", "a.png", false),
            ("photos/*.jpg", "photos/a.jpg", true),
            ("photos/*.jpg", "photos/x/a.jpg", false),
            ("photos/**/*.jpg", "photos/a.jpg", true),
            ("photos/**/*.jpg", "photos/x/y/a.jpg", true),
            ("**/drafts/**", "a/drafts/b/c.jpg", true),
            ("**/drafts/**", "a/b/c.jpg", false),
            ("*.{jpg,png}", "a.png", true),
            ("*.{jpg,png}", "a.gif", false),
            ("img-?.jpg", "img-1.jpg", true),
            ("img-?.jpg", "img-10.jpg", false),
            ("img-[0-4].jpg", "img-3.jpg", true),
            ("img-[!0-4].jpg", "img-3.jpg", false),
        ])
    func matching(_ pattern: String, _ path: String, _ expected: Bool) throws {
        #expect(try Glob(pattern).matches(path) == expected)
    }

    @Test("malformed patterns are refused with the reason")
    func malformed() {
        #expect { try Glob("a[bc") } throws: { "\($0)".contains("']'") }
        #expect { try Glob("a{b,c") } throws: { "\($0)".contains("'}'") }
        #expect { try Glob("/abs/*.jpg") } throws: { "\($0)".contains("relative") }
    }
}
