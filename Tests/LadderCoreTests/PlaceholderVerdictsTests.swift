import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// The placeholder checks that held, which verify keeps in `.ladder/placeholder-verdicts` so as
/// not to decode an unchanged image's smallest variant again (docs/VERIFY.md, "Results kept
/// between runs"). The expected file is made here from that documented format, not by the code
/// under test.
@Suite("Placeholder verdicts")
struct PlaceholderVerdictsTests {
    static let header = Array("ladder placeholder verdicts 1\n".utf8)

    /// The documented key of a check of the file whose SHA-256 is `sha256`, as 32 bytes.
    static func key(sha256: String, placeholder: String?, averageColor: String?) -> [UInt8] {
        let versions = Imaging.versions
        let text =
            "ladder \(LadderVersion.current) placeholder-verdicts 1\nlibjpeg-turbo \(versions.libjpeg)\n"
            + "libvips \(versions.libvips)\n\(sha256)\n\(placeholder ?? "-")\n\(averageColor ?? "-")\n"
        return bytes(hex: Checksum.hex(.sha256, of: Array(text.utf8)))
    }

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    /// The file that holds `keys`: the header, the keys in ascending order, and the SHA-256 of
    /// both.
    static func file(_ keys: [[UInt8]]) -> [UInt8] {
        let body = header + keys.sorted { $0.lexicographicallyPrecedes($1) }.joined()
        return body + bytes(hex: Checksum.hex(.sha256, of: body))
    }

    /// The key of each image's check, by its first source, as the manifest records the image.
    static func keys(_ manifest: Manifest, averageColor: [String: String] = [:]) -> [String: [UInt8]] {
        var keys: [String: [UInt8]] = [:]
        for entry in manifest.images.values {
            let source = entry.sources.min()!
            // The placeholder's variant: the fewest pixels, ties to the first name (a small
            // source's variants are all its own size).
            let smallest = entry.variants.min {
                ($0.value.width * $0.value.height, $0.key) < ($1.value.width * $1.value.height, $1.key)
            }!
            keys[source] = key(
                sha256: smallest.value.sha256, placeholder: entry.placeholder,
                averageColor: averageColor[source] ?? entry.averageColor)
        }
        return keys
    }

    /// The placeholder problems verify finds (a manifest edited by hand no longer matches its
    /// index either, which is beside the point here).
    static func verify(_ folder: TemporaryDirectory, reusing: Bool = true, deep: Bool = false) throws -> [String] {
        try Verifier(
            configuration: Pipelines.configuration(in: folder), options: .init(deep: deep, reusesResults: reusing)
        ).run().problems.filter { $0.kind.rawValue.hasPrefix("placeholder") }.map { "\($0.path) \($0.kind.rawValue)" }
    }

    static let store = ".ladder/placeholder-verdicts"

    @Test("verify keeps every check that held, in the documented file, and leaves it alone when nothing changed")
    func keepsWhatHeld() throws {
        let folder = try PlaceholderTests.project()
        #expect(try VerifyTests.verify(folder).isOK)
        let manifest = try PlaceholderTests.manifest(folder)
        #expect(try folder.read(Self.store) == Self.file(Array(Self.keys(manifest).values)))
        let before = try FileManager.default.attributesOfItem(atPath: folder.path(Self.store))[.systemFileNumber]
        #expect(try Self.verify(folder) == [])
        let after = try FileManager.default.attributesOfItem(atPath: folder.path(Self.store))[.systemFileNumber]
        #expect(before as? Int == after as? Int, "rewritten though nothing changed")
    }

    @Test("a kept verdict stands for the decode; another colour, --no-cache, --deep or a damaged file decode again")
    func verdictsStandForDecodes() throws {
        let folder = try PlaceholderTests.project()
        #expect(try Self.verify(folder) == [])
        var manifest = try PlaceholderTests.manifest(folder)
        let (sha1, entry) = try PlaceholderTests.entry(manifest, source: "photos/quadrants.jpg")
        let label = "build/variants/" + entry.variants["small_thumb"]!.path + " placeholder-color"
        manifest.images[sha1]?.averageColor = "#000000"
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")

        // The verdict kept for the right colour is another key: the wrong one is found.
        #expect(try Self.verify(folder) == [label])
        // A verdict kept under the wrong colour's key is believed, as documented...
        let forged = Self.keys(manifest, averageColor: ["photos/quadrants.jpg": "#000000"])
        try folder.write(Self.file(Array(forged.values)), to: Self.store)
        #expect(try Self.verify(folder) == [])
        // ...but not by --no-cache or --deep, which decode every placeholder.
        #expect(try Self.verify(folder, reusing: false) == [label])
        #expect(try Self.verify(folder, deep: true) == [label])
        // Nor when the file is damaged: it is ignored, and written again with what held.
        var damaged = try folder.read(Self.store)
        damaged[Self.header.count + 3] ^= 0x10
        try folder.write(damaged, to: Self.store)
        #expect(try Self.verify(folder) == [label])
        #expect(try folder.read(Self.store) == Self.file([forged["photos/clear.png"]!]))
    }
}
