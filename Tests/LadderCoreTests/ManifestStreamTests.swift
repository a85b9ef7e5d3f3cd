import Foundation
import LadderCore
import LadderManifest
import Testing

@Suite("The manifest read as a stream")
struct ManifestStreamTests {
    /// A manifest with what every part of the format can hold: escapes and non-ASCII in keys
    /// and paths, format siblings, failures, recipes and numbers of every length.
    static func manifest(images count: Int) -> Manifest {
        var images: [String: Manifest.ImageEntry] = [:]
        for index in 0..<count {
            let sha1 = String(format: "%040x", index * 7_919)
            let full = Manifest.VariantEntry(
                path: "f/\(index)-é \"q\".jpg", width: 2560 + index, height: 1, bytes: 401_234 * (index + 1),
                sha256: String(repeating: "a", count: 64), progressive: true, scans: 5, recipe: "r1",
                scanEnds: [41_210, 190_233, 230_118, 262_002, 401_234], script: "0:0-0:0:1;",
                formats: ["webp": Manifest.FormatEntry(path: "f/\(index).webp", bytes: 9, sha256: "b")])
            images[sha1] = Manifest.ImageEntry(
                sources: ["photos/\(index)\\back\tslash.png", "photos/日本/\(index).png"], width: index, height: 3,
                variants: ["full": full], placeholder: "3OcRJYB4d3h/iIeHeEh3eIhw+j3A", averageColor: "#7a6b52",
                hasAlpha: index % 2 == 0)
        }
        return Manifest(
            generator: Manifest.Generator(ladder: "0.1.0", libvips: "8.14.1", libjpeg: "2.1.5"), images: images,
            failures: ["photos/broken.jpg": "truncated JPEG: \"premature end\""],
            failureSHA1: ["photos/broken.jpg": String(repeating: "c", count: 40)], recipes: ["r1": ["a", "b"]])
    }

    @Test("read a few bytes at a time or a megabyte at a time, a manifest streams to what JSONDecoder reads whole")
    func chunkBoundaries() throws {
        let folder = TemporaryDirectory()
        let written = Self.manifest(images: 40)
        let data = written.jsonData()
        try folder.write([UInt8](data), to: "manifest.json")
        let whole = try JSONDecoder().decode(Manifest.self, from: data)
        for chunk in [1, 2, 3, 7, 64, 1 << 20] {
            let stream = try ManifestStream(path: folder.path("manifest.json"), byteLimit: 1 << 30, chunkBytes: chunk)
            #expect(stream.imageCount == 40, "chunks of \(chunk)")
            var read = stream.header
            #expect(read.images.isEmpty)
            let images = try stream.images()
            var order: [String] = []
            while case let batch = try images.next(atLeast: 16), !batch.isEmpty {
                for (key, entry) in batch {
                    read.images[key] = entry
                    order.append(key)
                }
            }
            #expect(read == whole, "chunks of \(chunk)")
            #expect(order == whole.images.keys.sorted(), "chunks of \(chunk): in the manifest's order")
        }
    }

    @Test(
        "a manifest larger than the byte limit streams when each of its members is within it; a member over it is refused"
    )
    func limitIsPerMember() throws {
        let folder = TemporaryDirectory()
        let written = Self.manifest(images: 40)
        let data = written.jsonData()
        try folder.write([UInt8](data), to: "manifest.json")
        // A million images make a manifest of about 1.8 GB: over a limit on the whole file,
        // while no image's entry comes near it.
        let limit = data.count / 4
        let stream = try ManifestStream(path: folder.path("manifest.json"), byteLimit: limit, chunkBytes: 256)
        var read = stream.header
        let images = try stream.images()
        while case let batch = try images.next(atLeast: 16), !batch.isEmpty {
            for (key, entry) in batch { read.images[key] = entry }
        }
        #expect(read == (try JSONDecoder().decode(Manifest.self, from: data)))

        var huge = written
        huge.failures["photos/long.jpg"] = String(repeating: "x", count: limit)
        try folder.write([UInt8](huge.jsonData()), to: "huge.json")
        #expect {
            _ = try ManifestStream(path: folder.path("huge.json"), byteLimit: limit, chunkBytes: 256)
        } throws: { error in
            guard case .manifest(let reason)? = error as? ManifestStream.Failure else { return false }
            return reason.contains("\(limit) bytes")
        }
    }

    @Test("a manifest that is not JSON, or whose image has a value of the wrong type, is refused as it is read whole")
    func refusals() throws {
        let folder = TemporaryDirectory()
        let text = String(decoding: Self.manifest(images: 3).jsonData(), as: UTF8.self)
        // One image of the wrong type: with several, which one JSONDecoder names first varies
        // from one decode to the next.
        let height = try #require(text.range(of: "\"height\" : 3,"))
        let broken = [
            String(text.prefix(text.utf8.count / 2)),
            text.replacingCharacters(in: height, with: "\"height\" : \"3\","),
            text.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2"),
            "[1]",
        ]
        for (number, manifest) in broken.enumerated() {
            try folder.write(manifest, to: "manifest.json")
            let expected: String
            do {
                _ = try Manifest(shapeOf: Data(manifest.utf8))
                Issue.record("case \(number) decodes whole")
                continue
            } catch {
                expected = error.reason
            }
            var reason: String?
            do {
                let stream = try ManifestStream(path: folder.path("manifest.json"), byteLimit: 1 << 30, chunkBytes: 5)
                let images = try stream.images()
                while try !images.next(atLeast: 1).isEmpty {}
            } catch {
                if case .manifest(let why) = error { reason = why }
            }
            #expect(reason == expected, "case \(number)")
        }
    }
}
