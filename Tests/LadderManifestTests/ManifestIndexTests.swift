import Foundation
import LadderManifest
import Testing

/// The index beside the manifest: its layout, its files, and how an entry is encoded.
@Suite("Manifest index")
struct ManifestIndexTests {
    /// A manifest of `count` images with distinct SHA1s spread over all prefixes, each with two
    /// variants, a placeholder and a colour.
    static func manifest(images count: Int) -> Manifest {
        var images: [String: Manifest.ImageEntry] = [:]
        var generator = SystemRandomNumberGenerator()
        while images.count < count {
            let sha1 = (0..<40).map { _ in String(Int.random(in: 0..<16, using: &generator), radix: 16) }.joined()
            let variants = ["small_thumb": 160, "full": 2560].mapValues { side in
                Manifest.VariantEntry(
                    path: "\(sha1.prefix(2))/\(sha1)-\(side).jpg", width: side, height: side * 3 / 4, bytes: side * 40,
                    sha256: String(repeating: "b", count: 64), progressive: side > 160, scans: side > 160 ? 5 : 1,
                    recipe: "0123abcd")
            }
            images[sha1] = Manifest.ImageEntry(
                sources: ["photos/\(images.count).jpg"], width: 4000, height: 3000, variants: variants,
                placeholder: "1QcSHQRnh493V4dIh4eXh1h4kJUI", averageColor: "#7a6b52", hasAlpha: images.count % 2 == 0)
        }
        return Manifest(generator: .init(ladder: "0.1.0", libvips: "8.14.1", libjpeg: "2.1.5"), images: images)
    }

    @Test(
        "prefixes grow one hex digit each time the mean entries per file would pass 64",
        arguments: [
            (0, 2), (1, 2), (16_384, 2), (16_385, 3), (262_144, 3), (262_145, 4), (1_000_000, 4), (4_194_304, 4),
            (4_194_305, 5),
        ])
    func prefixLength(images: Int, expected: Int) {
        #expect(ManifestIndex.prefixLength(forImageCount: images) == expected)
    }

    @Test("past 16,384 images the index has 4,096 files of 3-digit prefixes, each image in the file its SHA1 names")
    func longerPrefixes() throws {
        let manifest = Self.manifest(images: 16_385)
        let files = ManifestIndex.files(for: manifest)
        #expect(files.count == 4_096 + 1)
        let layout = try ManifestIndex.Layout(jsonData: try #require(files["index/layout.json"]))
        #expect(layout.prefixLength == 3)
        #expect(
            String(decoding: try #require(files["index/layout.json"]), as: UTF8.self)
                == "{\"prefixLength\":3,\"version\":1}\n")
        var found = 0
        for (path, data) in files where path != "index/layout.json" {
            let prefix = String(path.dropFirst("index/".count).dropLast(".json".count))
            #expect(prefix.count == 3)
            let index = try ManifestIndex(jsonData: data, prefix: prefix)
            found += index.images.count
        }
        #expect(found == manifest.images.count)
        for sha1 in manifest.images.keys.sorted().prefix(20) {
            let path = ManifestIndex.path(forSHA1: sha1, prefixLength: 3)
            let index = try ManifestIndex(jsonData: try #require(files[path]), prefix: String(sha1.prefix(3)))
            #expect(index.images[sha1] == manifest.images[sha1].map(ManifestIndex.Entry.init))
        }
        // The same manifest gives the same bytes.
        #expect(ManifestIndex.files(for: manifest) == files)
    }

    @Test("an index entry carries its variants' siblings in other formats, as the manifest has them")
    func formats() throws {
        var manifest = Self.manifest(images: 3)
        let sha1 = try #require(manifest.images.keys.sorted().first)
        let avif = Manifest.FormatEntry(
            path: "\(sha1.prefix(2))/\(sha1)-full.avif", bytes: 999, sha256: String(repeating: "f", count: 64))
        manifest.images[sha1]?.variants["full"]?.formats = ["avif": avif]
        let files = ManifestIndex.files(for: manifest)
        let path = ManifestIndex.path(forSHA1: sha1, prefixLength: 2)
        let index = try ManifestIndex(jsonData: try #require(files[path]), prefix: String(sha1.prefix(2)))
        #expect(index.images[sha1]?.variants["full"]?.formats == ["avif": avif])
        #expect(index.images[sha1]?.variants["small_thumb"]?.formats == nil)
        #expect(String(decoding: try #require(files[path]), as: UTF8.self).contains(#""formats":{"avif":{"#))
    }

    @Test("a manifest named NAME.json has its index in NAME.index/")
    func folderFollowsTheManifestName() {
        #expect(ManifestIndex.layoutPath(manifestName: "photos.json") == "photos.index/layout.json")
        #expect(
            ManifestIndex.path(forSHA1: String(repeating: "c", count: 40), prefixLength: 2, manifestName: "photos.json")
                == "photos.index/cc.json")
        #expect(ManifestIndex.layoutPath() == "index/layout.json")
    }

    @Test("a layout file with another version or an impossible prefix length is refused")
    func refusesBadLayouts() {
        for text in [#"{"prefixLength":2,"version":2}"#, #"{"prefixLength":1,"version":1}"#, #"{"version":1}"#, "[]"] {
            #expect(throws: Manifest.ReadError.self, "\(text)") { try ManifestIndex.Layout(jsonData: Data(text.utf8)) }
        }
    }

    @Test("an index file's bytes are JSONEncoder's compact encoding, keys sorted, slashes as they are")
    func filesAreTheEncodersBytes() throws {
        var manifest = Self.manifest(images: 40)
        for (number, key) in manifest.images.keys.sorted().enumerated() {
            var entry = try #require(manifest.images[key])
            entry.placeholder = number % 3 == 0 ? nil : "a/b+\"q\"\\\u{1}\u{8}\t\n\u{c}\r\u{1f}\u{7f}\u{e9}\u{2028}"
            entry.averageColor = number % 4 == 0 ? nil : "#0a0b0c"
            entry.hasAlpha = number % 5 == 0 ? nil : number % 2 == 0
            for name in entry.variants.keys {
                entry.variants[name]?.scanEnds = number % 2 == 0 ? [] : [1, 200, -3]
                entry.variants[name]?.formats =
                    number % 3 == 1
                    ? [:]
                    : [
                        "webp": .init(path: "x/y.webp", bytes: 1, sha256: "ab"),
                        "avif": .init(path: "x/\u{e9}.avif", bytes: 2, sha256: "cd"),
                    ]
            }
            if number % 7 == 0 { entry.variants = [:] }
            // Names that are not plain ASCII, whose order may differ by UTF-8 and by UTF-16:
            // those files are left to JSONEncoder.
            if number % 11 == 3, let any = entry.variants.values.first {
                entry.variants["\u{ff5e}"] = any
                entry.variants["\u{1f600}"] = any
            }
            manifest.images[key] = entry
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let files = ManifestIndex.files(for: manifest)
        var compared = 0
        for (path, data) in files where !path.hasSuffix(ManifestIndex.layoutName) {
            let prefix = String(path.split(separator: "/").last!.dropLast(5))
            let index = ManifestIndex(
                images: manifest.images.filter { $0.key.hasPrefix(prefix) }.mapValues(ManifestIndex.Entry.init))
            var expected = try encoder.encode(index)
            expected.append(0x0A)
            #expect(String(decoding: data, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(path)")
            if !index.images.isEmpty { compared += 1 }
        }
        #expect(compared > 20)
    }
}
