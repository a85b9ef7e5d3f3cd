import Foundation
import LadderManifest
import Testing

/// `String.utf8Precedes` must order strings exactly as their UTF-8 bytes compare (the oracle:
/// the byte arrays' own lexicographic order), whether a string is stored inline, in a buffer of
/// its own, or bridged from Foundation.
@Suite("Byte order")
struct ByteOrderTests {
    static let strings: [String] = [
        "", "a", "b", "ab", "abc", "abd", "A", "Z", "~", "a/b", "a-b", "a.b",
        // Differ only by Unicode normalization: equal to Swift's ==, distinct and ordered here.
        "\u{E9}", "e\u{301}", "\u{FF5E}", "\u{1F600}", "é/ü", "a\u{0}b",
        // Longer than the 15 bytes a string holds inline.
        "00/0123456789abcdef0123456789abcdef01234567-full-1a2b3c4d.jpg",
        "00/0123456789abcdef0123456789abcdef01234567-full-1a2b3c4e.jpg",
        "00/0123456789abcdef0123456789abcdef01234567-full",
        String(repeating: "\u{E9}", count: 40), String(repeating: "e\u{301}", count: 40),
        NSString(string: "bridged from Foundation, and long enough").substring(from: 0),
        NSString(string: "bridged \u{E9}").substring(from: 0),
    ]

    @Test("strings sort by their UTF-8 bytes, as byte arrays do")
    func ordersLikeBytes() {
        for left in Self.strings {
            for right in Self.strings {
                let oracle = Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8))
                #expect(left.utf8Precedes(right) == oracle, "\(left.debugDescription) < \(right.debugDescription)")
            }
        }
        #expect("\u{E9}".utf8Precedes("e\u{301}") == false && "e\u{301}".utf8Precedes("\u{E9}"))
    }
}
