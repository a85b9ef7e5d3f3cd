import Foundation
import LadderManifest
import Testing

@Suite("Manifest")
struct ManifestTests {
    static let sha1 = "3fa4c2d1e0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5"

    static func sample(sources: [String] = ["photos/b.jpg", "photos/a.jpg"]) -> Manifest {
        Manifest(
            generator: .init(ladder: "0.1.0", libvips: "8.14.1", libjpeg: "2.1.5"),
            images: [
                sha1: Manifest.ImageEntry(
                    sources: sources, width: 4000, height: 3000,
                    variants: [
                        "full": Manifest.VariantEntry(
                            path: "3f/\(sha1)-full-9b1e04d2.jpg", width: 2560, height: 1920, bytes: 401_234,
                            sha256: String(repeating: "a", count: 64), progressive: true, scans: 5, recipe: "9b1e04d2")
                    ])
            ],
            failures: ["photos/broken.jpg": "decode: truncated"])
    }

    @Test("the same manifest always gives the same bytes, with sorted keys and sources")
    func deterministicJSON() throws {
        let first = Self.sample(sources: ["photos/b.jpg", "photos/a.jpg"]).jsonData()
        let second = Self.sample(sources: ["photos/a.jpg", "photos/b.jpg"]).jsonData()
        #expect(first == second)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasSuffix("}\n"))
        // Sorted: "failures" before "generator" before "images" before "version".
        let order = ["\"failures\"", "\"generator\"", "\"images\"", "\"version\""].map {
            text.range(of: $0)!.lowerBound
        }
        #expect(order == order.sorted())
        #expect(text.range(of: "\"photos/a.jpg\"")!.lowerBound < text.range(of: "\"photos/b.jpg\"")!.lowerBound)
        #expect(!text.contains("\\/"), "slashes are not escaped")
    }

    @Test("the manifest written in pieces, image by image, is the bytes of the whole manifest's encoding")
    func piecesAreTheWholeEncoding() throws {
        var manifest = Self.sample()
        let variant = try #require(manifest.images[Self.sha1]?.variants["full"])
        for number in 0..<40 {
            var entry = try #require(manifest.images[Self.sha1])
            entry.sources = [
                "photos/\(40 - number).png", "photos/a \"quoted\" \u{e9}.png", "x\u{1}\t\n\u{8}\u{c}\r\u{1f}\u{7f}/\\",
            ]
            entry.captured = number % 2 == 0 ? "2024-05-01T10:00:00" : nil
            entry.format = number % 3 == 1 ? "png" : nil
            entry.bytes = number % 3 == 2 ? -number : nil
            entry.orientation = number % 4 == 1 ? 6 : nil
            entry.gpsRemoved = number % 5 == 1 ? number % 2 == 0 : nil
            entry.hasAlpha = number % 3 == 0
            entry.placeholder = number % 2 == 0 ? "1QcSHQRnh493V4dIh4eXh1h4kJUI" : nil
            var sibling = variant
            sibling.formats = number % 4 == 0 ? ["webp": .init(path: "a/b.webp", bytes: 10, sha256: "00")] : [:]
            sibling.scanEnds = number % 5 == 0 ? [] : [1, 2]
            sibling.script = number % 6 == 0 ? "0,1,2: 0-0, 0, 0; 0: 1-63, 0, 0" : nil
            entry.variants = number % 7 == 0 ? [:] : ["full": sibling, "small_thumb": variant]
            // Names that are not plain ASCII (left to JSONEncoder), a variant's and a format's.
            if number % 9 == 4 {
                entry.variants["\u{ff5e}"] = variant
                entry.variants["\u{1f600}"] = sibling
                entry.variants["full"]?.formats = ["\u{e9}": .init(path: "a/\u{e9}.webp", bytes: 1, sha256: "00")]
            }
            manifest.images[String(format: "%08x", number * 104_729) + String(repeating: "c", count: 32)] = entry
        }
        manifest.recipes = ["9b1e04d2": ["box 2560x2560", "quality 85"], "0000": []]
        manifest.failureSHA1 = ["photos/broken.jpg": String(repeating: "d", count: 40)]
        for images in [manifest.images, [:]] {
            var whole = manifest
            whole.images = images
            let pieces = Manifest.JSONPieces(header: manifest)
            var streamed = images.isEmpty ? pieces.withoutImages : pieces.opening
            for (offset, key) in images.keys.sorted().enumerated() {
                streamed += pieces.image(key, images[key]!, first: offset == 0)
            }
            if !images.isEmpty { streamed += pieces.closing }
            #expect(
                String(decoding: streamed, as: UTF8.self) == String(decoding: whole.jsonData(), as: UTF8.self),
                "\(images.count) images")
        }
    }

    @Test("a written manifest reads back equal")
    func roundTrip() throws {
        let manifest = Self.sample()
        var expected = manifest
        expected.images[Self.sha1]?.sources.sort()
        #expect(try Manifest(jsonData: manifest.jsonData()) == expected)
    }

    @Test(
        "each broken path is told by its first problem: empty, absolute, backslash, control character, then segments in order"
    )
    func pathProblems() {
        let long = String(repeating: "x", count: 256)
        let cases: [(String, String?)] = [
            ("", "empty path"), ("/a", "absolute path"), ("/a\\b", "absolute path"), ("a\\b", "backslash in path"),
            ("../a\\b", "backslash in path"), ("a/\u{1}b", "control character in path"),
            ("a/\u{7F}/../", "control character in path"), ("a//b", "empty segment in path"),
            ("a/", "empty segment in path"), ("./a", "'.' segment in path"), ("a/..", "'..' segment in path"),
            ("a/../b//c", "'..' segment in path"), (long, "segment longer than 255 bytes"),
            ("a/" + long + "/.", "segment longer than 255 bytes"), ("...", nil), ("a/.b/c..", nil),
            (String(long.dropFirst()), nil), ("3f/3fa4-full-9b1e04d2.jpg", nil), ("caf\u{E9}/\u{1F600}.jpg", nil),
        ]
        for (path, problem) in cases {
            #expect(ManifestPath.problem(with: path) == problem, "\(path.debugDescription)")
        }
    }

    @Test(
        "paths that could escape the manifest's folder are refused",
        arguments: ["/etc/passwd", "../x.jpg", "a/../../x.jpg", "a//b.jpg", "a\\b.jpg", "./a.jpg", "", "a/\u{1}b"])
    func refusesEscapingPaths(_ path: String) throws {
        #expect(ManifestPath.problem(with: path) != nil)
        var manifest = Self.sample()
        manifest.images[Self.sha1]?.variants["full"]?.path = path
        #expect(throws: Manifest.ReadError.self) { try Manifest(jsonData: manifest.jsonData()) }
    }

    @Test(
        "a format sibling's path that could escape the manifest's folder is refused, with where it is",
        arguments: ["../x.avif", "/etc/passwd", "a//b.webp"])
    func refusesEscapingSiblingPaths(_ path: String) throws {
        var manifest = Self.sample()
        manifest.images[Self.sha1]?.variants["full"]?.formats = [
            "avif": Manifest.FormatEntry(path: path, bytes: 10, sha256: String(repeating: "b", count: 64))
        ]
        #expect(throws: Manifest.ReadError.self) { try Manifest(jsonData: manifest.jsonData()) }
        let location = manifest.contentProblems().first?.location
        #expect(location == "$.images[\"\(Self.sha1)\"].variants[\"full\"].formats.avif.path")
    }

    @Test("format siblings read back, and the index carries them")
    func formatSiblingsRoundTrip() throws {
        var manifest = Self.sample()
        let sibling = Manifest.FormatEntry(path: "3f/x.avif", bytes: 1234, sha256: String(repeating: "c", count: 64))
        manifest.images[Self.sha1]?.variants["full"]?.formats = ["avif": sibling]
        let read = try Manifest(jsonData: manifest.jsonData())
        #expect(read.images[Self.sha1]?.variants["full"]?.formats?["avif"] == sibling)
        let text = String(decoding: manifest.jsonData(), as: UTF8.self)
        #expect(text.contains("\"formats\" : {\n"))
        #expect(!String(decoding: Self.sample().jsonData(), as: UTF8.self).contains("formats"), "absent when none")
        let index = ManifestIndex(images: [Self.sha1: ManifestIndex.Entry(read.images[Self.sha1]!)])
        let indexRead = try ManifestIndex(jsonData: index.jsonData())
        #expect(indexRead.images[Self.sha1]?.variants["full"]?.formats?["avif"] == sibling)
    }

    @Test("ordinary relative paths are accepted")
    func acceptsRelativePaths() {
        #expect(ManifestPath.isValid("3f/3fa4-full-9b1e04d2.jpg"))
        #expect(ManifestPath.isValid("variants/3f/x.jpg"))
    }

    @Test("an unknown version or a key that is not a SHA1 is refused with the reason")
    func refusesBadVersionAndKeys() throws {
        var manifest = Self.sample()
        manifest.version = 2
        #expect { try Manifest(jsonData: manifest.jsonData()) } throws: { error in
            "\(error)".contains("version 2")
        }
        manifest = Self.sample()
        manifest.images["NOT-A-SHA1"] = manifest.images[Self.sha1]
        #expect { try Manifest(jsonData: manifest.jsonData()) } throws: { error in
            "\(error)".contains("NOT-A-SHA1")
        }
    }

    @Test("JSON that is not a manifest is refused with where and why")
    func refusesWrongShapes() {
        #expect { try Manifest(jsonData: Data("{\"version\": 1}".utf8)) } throws: { error in
            "\(error)".contains("generator")
        }
        #expect(throws: Manifest.ReadError.self) { try Manifest(jsonData: Data("not json".utf8)) }
    }
}
