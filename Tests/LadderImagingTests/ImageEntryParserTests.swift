import Foundation
import LadderImaging
import LadderManifest
import Testing

/// The image entries verify and merge read with yajl's event parser, held to `JSONDecoder`: the
/// same entry for what ladder writes, and nil (so that `JSONDecoder` decides) for what it is
/// not sure of.
@Suite("Image entry parser")
struct ImageEntryParserTests {
    static func entries() -> [Manifest.ImageEntry] {
        return (0..<24).map { number in
            // Control characters other than these five are written as \u escapes (every eighth).
            let hard =
                "a/b \"q\" \\ \u{8}\t\n\u{c}\r\u{7f} \u{e9}\u{2028}\u{1F600}" + (number % 8 == 3 ? "\u{1}\u{1f}" : "")
            let variant = Manifest.VariantEntry(
                path: number % 2 == 0 ? "ab/cd.jpg" : hard, width: number, height: -number, bytes: Int.max - number,
                sha256: String(repeating: "e", count: 64), progressive: number % 2 == 0, scans: 5, recipe: "9b1e04d2",
                scanEnds: number % 3 == 0 ? nil : number % 3 == 1 ? [] : [1, 2, Int.min + 1],
                script: number % 4 == 0 ? nil : "0,1,2: 0-0, 0, 0",
                formats: number % 5 == 0
                    ? nil : number % 5 == 1 ? [:] : ["webp": .init(path: hard, bytes: 3, sha256: "")])
            return Manifest.ImageEntry(
                sources: number % 6 == 0 ? [] : ["photos/\(number).png", hard], width: 4000, height: 3000,
                variants: number % 7 == 0 ? [:] : ["full": variant, "small_thumb": variant, hard: variant],
                format: number % 2 == 0 ? "png" : nil, bytes: number % 3 == 0 ? nil : 123,
                orientation: number % 4 == 0 ? 6 : nil, captured: number % 5 == 0 ? nil : "2024-05-01T10:00:00",
                gpsRemoved: number % 3 == 0 ? nil : number % 2 == 0,
                placeholder: number % 2 == 0 ? nil : "1QcSHQRnh493V4dIh4eXh1h4kJUI",
                averageColor: number % 3 == 0 ? nil : "#7a6b52", hasAlpha: number % 4 == 0 ? true : nil)
        }
    }

    @Test("what ladder writes reads as JSONDecoder reads it, pretty or compact")
    func readsWhatLadderWrites() throws {
        var read = 0
        for pretty in [true, false] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : []
            for entry in Self.entries() {
                let json = [UInt8](try encoder.encode(entry))
                let expected = try JSONDecoder().decode(Manifest.ImageEntry.self, from: Data(json))
                let parsed = ImageEntryParser.parse(json)
                if String(decoding: json, as: UTF8.self).contains("\\u00") {
                    #expect(parsed == nil)
                } else {
                    #expect(parsed == expected, "\(String(decoding: json, as: UTF8.self))")
                    read += 1
                }
            }
        }
        #expect(read == 2 * 21)
    }

    @Test(
        "an entry ladder wrote, quotes, backslashes, tabs and non-ASCII paths included, is read, not left to JSONDecoder"
    )
    func readsPlainEscapes() throws {
        let text = """
            {"sources": ["a \\"b\\" \\\\ \\t\\n\\/ é😀"], "width": 10, "height": -2, "unknown": [1, {"x": null}],
             "variants": {"full": {"path": "p.jpg", "width": 1, "height": 2, "bytes": 3, "sha256": "s",
               "progressive": true, "scans": 5, "recipe": "r", "scanEnds": [4, 5], "script": null, "formats": null}},
             "placeholder": "p", "hasAlpha": null}
            """
        let json = Array(text.utf8)
        let expected = try JSONDecoder().decode(Manifest.ImageEntry.self, from: Data(json))
        let parsed = try #require(ImageEntryParser.parse(json))
        #expect(parsed == expected)
        #expect(parsed.sources == ["a \"b\" \\ \t\n/ é😀"])
        #expect(parsed.hasAlpha == false)
    }

    /// A sound variant's text, for the cases below.
    static let variant =
        #"{"path": "p", "width": 1, "height": 1, "bytes": 1, "sha256": "s", "progressive": true, "scans": 1, "recipe": "r"}"#

    @Test("unknown members are skipped at every level, containers within them included, as JSONDecoder skips them")
    func skipsUnknownMembers() throws {
        let text = """
            {"extra": {"a": [[], {"b": [1, {"c": {}}]}], "variants": 1}, "sources": ["s"], "width": 3, "height": 4,
             "variants": {"full": {"path": "p.jpg", "new": [{"path": 1}], "width": 1, "height": 2, "bytes": 3,
               "sha256": "s", "progressive": false, "scans": 1, "recipe": "r",
               "formats": {"webp": {"later": {"path": null}, "path": "p.webp", "bytes": 9, "sha256": "t"}}}},
             "after": [null, true, 1.5, "x"], "gpsRemoved": true}
            """
        let json = Array(text.utf8)
        let expected = try JSONDecoder().decode(Manifest.ImageEntry.self, from: Data(json))
        let parsed = try #require(ImageEntryParser.parse(json))
        #expect(parsed == expected)
        #expect(parsed.variants["full"]?.formats?["webp"]?.path == "p.webp")
        #expect(parsed.gpsRemoved == true && parsed.sources == ["s"])
    }

    @Test("what it is not sure of is left to JSONDecoder", arguments: leftToJSONDecoder)
    func leavesTheRest(_ text: String) {
        #expect(ImageEntryParser.parse(Array(text.utf8)) == nil)
    }

    static let leftToJSONDecoder = [
        #"{"sources": [], "width": 1.0, "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": 1e2, "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": 99999999999999999999, "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": -9223372036854775808, "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": "1", "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": 1, "width": 2, "height": 1, "variants": {}}"#,
        #"{"sources": ["\u0041"], "width": 1, "height": 1, "variants": {}}"#,
        #"{"sources": ["\ud800"], "width": 1, "height": 1, "variants": {}}"#,
        #"{"sources": [null], "width": 1, "height": 1, "variants": {}}"#,
        #"{"sources": [], "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {}, "bytes": "9"}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": {}}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": [], "format": 1}"#,
        #"[1]"#,
        // Checked in every object it reads, as JSONDecoder would be asked to.
        #"{"sources": [], "width": 1, "height": 1, "variants": {}, "x": 1, "x": 2}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": \#(variant), "a": \#(variant)}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": {"path": "p", "path": "q", "width": 1, "height": 1, "bytes": 1, "sha256": "s", "progressive": true, "scans": 1, "recipe": "r"}}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": {"path": null, "width": 1, "height": 1, "bytes": 1, "sha256": "s", "progressive": true, "scans": 1, "recipe": "r"}}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": {"path": "p", "width": 1, "height": 1, "bytes": 1, "sha256": "s", "progressive": true, "scans": 1, "recipe": "r", "scanEnds": [1, "2"]}}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": {"path": "p", "width": 1, "height": 1, "bytes": 1, "sha256": "s", "progressive": true, "scans": 1, "recipe": "r", "formats": {"webp": {"path": "w", "bytes": null, "sha256": "t"}}}}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {"a": {"path": "p", "width": 1, "height": 1, "bytes": 1, "sha256": "s", "progressive": true, "scans": 1, "recipe": "r", "formats": {"webp": {"path": "w", "sha256": "t"}}}}}"#,
        #"{"sources": "a", "width": 1, "height": 1, "variants": {}}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {}, "format": ["png"]}"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {}} 1"#,
        #"{"sources": [], "width": 1, "height": 1, "variants": {}"#,
    ]

    /// `values` as the members of a manifest's `images`, read by `JSONMemberStream` with each
    /// entry read from the stream's own events, `chunk` bytes at a time.
    static func streamed(_ values: [[UInt8]], chunk: Int) throws -> [JSONMemberStream.Member] {
        var document = Array(#"{"failures": {}, "images": {"#.utf8)
        for (index, value) in values.enumerated() {
            if index > 0 { document += Array(",\n ".utf8) }
            document += Array("\"k\(index)\": ".utf8) + value
        }
        document += Array(#"}, "version": 1}"#.utf8)
        var offset = 0
        let stream = JSONMemberStream(streaming: ["images"], readsImageEntries: true) {
            guard offset < document.count else { return nil }
            defer { offset += chunk }
            return Array(document[offset..<min(offset + chunk, document.count)])
        }
        var members: [JSONMemberStream.Member] = []
        while case let read = try stream.next(atLeast: 5), !read.isEmpty { members += read }
        #expect(members.filter { $0.parent == nil }.map(\.key) == ["failures", "version"])
        return members.filter { $0.parent == "images" }
    }

    @Test(
        "the framing's own pass reads each entry as JSONDecoder does, and hands over the bytes of one it is not sure of, whatever came before"
    )
    func readsEntriesInTheFramingPass() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let written = try Self.entries().map { [UInt8](try encoder.encode($0)) }
        // Every value the parser leaves to JSONDecoder (but the two that are not JSON), each
        // followed by one it reads, so that a refused entry's state cannot leak into the next.
        let left = Self.leftToJSONDecoder.dropLast(2).map { Array($0.utf8) }
        var values: [[UInt8]] = []
        for (index, value) in left.enumerated() { values += [value, written[index % written.count]] }
        values += written
        for chunk in [3, 64, 1 << 20] {
            let members = try Self.streamed(values, chunk: chunk)
            try #require(members.count == values.count)
            var read = 0
            for (member, value) in zip(members, values) {
                let decoded = try? JSONDecoder().decode(Manifest.ImageEntry.self, from: Data(value))
                if let entry = member.entry {
                    #expect(entry == decoded, "\(String(decoding: value, as: UTF8.self))")
                    #expect(member.value.isEmpty)
                    read += 1
                } else {
                    #expect(ImageEntryParser.parse(value) == nil, "\(String(decoding: value, as: UTF8.self))")
                    #expect(member.value == value, "the bytes, for JSONDecoder to decide")
                }
            }
            // Of the 23 written entries after a refused one, and of the 24 at the end, those with
            // a \u escape (numbers 3, 11 and 19) are left to JSONDecoder too: 20 + 21 read.
            #expect(left.count == 23 && read == 41)
        }
    }
}
