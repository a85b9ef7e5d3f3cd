import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Synchronization
import Testing

/// The manifest's placeholder, averageColor and hasAlpha, and the index files beside it.
@Suite("Placeholders and index")
struct PlaceholderTests {
    /// A project with a four-colour JPEG and a half-transparent PNG.
    static func project() throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.quadrantFile(width: 400, height: 300), to: "photos/quadrants.jpg")
        try folder.write(TestImages.halfTransparentPNG(), to: "photos/clear.png")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        return folder
    }

    static func manifest(_ folder: TemporaryDirectory) throws -> Manifest {
        try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
    }

    static func entry(_ manifest: Manifest, source: String) throws -> (String, Manifest.ImageEntry) {
        try #require(manifest.images.first { $0.value.sources.contains(source) }.map { ($0.key, $0.value) })
    }

    @Test("a fresh build gives every image a placeholder and a colour that match its known pixels")
    func freshBuild() throws {
        let folder = try Self.project()
        let manifest = try Self.manifest(folder)
        let (_, quadrants) = try Self.entry(manifest, source: "photos/quadrants.jpg")
        // The four quadrants' colours, averaged: what the picture's mean must be.
        let colors = TestImages.quadrantColors
        let mean = (0..<3).map { channel in Double(colors.reduce(0) { $0 + Int($1[channel]) }) / 4 }
        let average = try #require(quadrants.averageColor.flatMap(RGBColor.init))
        #expect(
            zip([average.red, average.green, average.blue].map(Double.init), mean).allSatisfy { abs($0 - $1) <= 4 })
        let hash = try #require(quadrants.placeholder.flatMap { ThumbHash(base64: $0) })
        let hashAverage = try #require(hash.averageColor)
        #expect(
            zip([hashAverage.red, hashAverage.green, hashAverage.blue].map { $0 * 255 }, mean).allSatisfy {
                abs($0 - $1) <= 12
            })
        let picture = try #require(hash.picture())
        // ThumbHash keeps the aspect ratio as its luminance terms' ratio: 4:3 becomes 7:5.
        #expect(picture.width == 32 && picture.height == 23, "a 4:3 photo decodes to a 7:5 placeholder")
        #expect(quadrants.hasAlpha == false)

        let (_, clear) = try Self.entry(manifest, source: "photos/clear.png")
        #expect(clear.hasAlpha == true)
        let clearAlpha = clear.placeholder.flatMap { ThumbHash(base64: $0) }?.averageColor?.alpha
        #expect(clearAlpha == 1.0, "flattened: no alpha left")
        #expect(try VerifyTests.verify(folder).problems.isEmpty)
    }

    @Test(
        "a thumbnail already inside 100x100 gives the placeholder the picture libvips gives, and verify still finds a wrong one"
    )
    func smallThumbnails() throws {
        TestImages.start()
        let jpegs =
            try [(1, 1), (24, 24), (100, 37), (37, 100), (100, 100), (101, 60), (160, 120)].map {
                try TestImages.gradientJPEG(width: $0.0, height: $0.1, seed: $0.0)
            } + [TestImages.grayscaleJPEG(width: 24, height: 24), TestImages.cmykJPEG(width: 64, height: 48)]
        for (index, jpeg) in jpegs.enumerated() {
            let input = try PlaceholderInput(decoding: jpeg)
            let taken = try input.thumbHashPicture()
            let resized = try input.thumbHashPicture(throughLibvips: true)
            #expect(taken.width == resized.width && taken.height == resized.height)
            #expect(taken.rgba == resized.rgba, "picture \(index)")
        }

        // Tiny sources: every variant, the smallest included, is the source's 24x24.
        let folder = TemporaryDirectory()
        for seed in 0..<3 {
            try folder.write(TestImages.gradientJPEG(width: 24, height: 24, seed: seed), to: "photos/\(seed).jpg")
        }
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        var manifest = try Self.manifest(folder)
        for (_, entry) in manifest.images {
            #expect(entry.variants.values.allSatisfy { $0.width == 24 && $0.height == 24 } && entry.variants.count == 3)
            // Of three variants of one size, the first by name: "full".
            let made = try #require(entry.variants["full"])
            let file = try PlaceholderInput(decoding: folder.read("build/variants/" + made.path))
            let hash = try #require(ThumbHash(encoding: file.thumbHashPicture(throughLibvips: true)))
            #expect(entry.placeholder == hash.base64, "the placeholder libvips' picture gives")
        }
        #expect(try VerifyTests.verify(folder).problems.isEmpty)
        let (sha1, _) = try Self.entry(manifest, source: "photos/1.jpg")
        let gray = [UInt8](repeating: 10, count: 48).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
        manifest.images[sha1]?.placeholder = try #require(ThumbHash(encoding: .init(width: 4, height: 3, rgba: gray)))
            .base64
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        let problems = try VerifyTests.verify(folder).problems.filter { $0.kind.rawValue == "placeholder-color" }
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.image == sha1)
        #expect(problems.first?.message.contains("placeholder's average colour") == true)
    }

    @Test("verify reports an averageColor or a placeholder that does not match the image")
    func verifyFindsWrongColours() throws {
        let folder = try Self.project()
        var manifest = try Self.manifest(folder)
        let (sha1, _) = try Self.entry(manifest, source: "photos/quadrants.jpg")
        // A placeholder of a dark grey picture, far from the quadrants' colours.
        let gray = [UInt8](repeating: 10, count: 48).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
        let dark = try #require(ThumbHash(encoding: .init(width: 4, height: 3, rgba: gray)))
        manifest.images[sha1]?.averageColor = "#000000"
        manifest.images[sha1]?.placeholder = dark.base64
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        let problems = try VerifyTests.verify(folder).problems.filter {
            $0.image == sha1 && $0.kind.rawValue == "placeholder-color"
        }
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.message.contains("averageColor #000000") })
        #expect(problems.contains { $0.message.contains("placeholder's average colour") })
    }

    @Test(
        "the index: 256 files, the same bytes from the same inputs, each entry as the manifest says, checked by verify")
    func index() throws {
        let first = try Self.project()
        let second = try Self.project()
        let manifest = try Self.manifest(first)
        let names = first.files(under: "build/variants/index")
        #expect(names.count == 256 + 1, "256 prefix files and layout.json")
        #expect(try first.contents(under: "build/variants/index") == second.contents(under: "build/variants/index"))
        for (sha1, entry) in manifest.images {
            let data = Data(try first.read("build/variants/" + ManifestIndex.path(forSHA1: sha1, prefixLength: 2)))
            let index = try ManifestIndex(jsonData: data, prefix: String(sha1.prefix(2)))
            #expect(index.images[sha1] == ManifestIndex.Entry(entry))
        }
        // An index file changed or removed is a problem of kind "index".
        let path = "build/variants/" + ManifestIndex.path(forSHA1: manifest.images.keys.sorted()[0], prefixLength: 2)
        try first.write("{\"images\":{},\"version\":1}\n", to: path)
        try FileManager.default.removeItem(atPath: first.path("build/variants/index/00.json"))
        let problems = try VerifyTests.verify(first).problems.filter { $0.kind.rawValue == "index" }
        #expect(problems.count == 2, "\(problems)")
        // The next build puts them back.
        try Pipelines.build(in: first)
        #expect(try VerifyTests.verify(first).problems.isEmpty)
    }

    /// Photos of several shapes (a ThumbHash's length follows the aspect ratio) and a
    /// transparent PNG.
    static func shapesProject() throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for (index, (width, height)) in [(400, 300), (300, 400), (300, 300), (640, 200), (200, 640)].enumerated() {
            try folder.write(
                TestImages.gradientJPEG(width: width, height: height, seed: index), to: "photos/p\(index).jpg")
        }
        try folder.write(TestImages.halfTransparentPNG(), to: "photos/clear.png")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        return folder
    }

    @Test(
        "placeholder, averageColor and hasAlpha add at most 92 bytes to an opaque image's manifest entry (114 before)")
    func entryBytes() throws {
        let folder = try Self.shapesProject()
        let written = Data(try folder.read("build/variants/manifest.json"))
        let manifest = try Self.manifest(folder)
        #expect(manifest.jsonData() == written, "the manifest reads back to the same bytes")
        // An independent parser: valid JSON, and "hasAlpha" only where the source had alpha.
        let object = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        let images = try #require(object["images"] as? [String: [String: Any]])
        let (clearSHA1, _) = try Self.entry(manifest, source: "photos/clear.png")
        #expect(images.count == 6)
        for (sha1, entry) in images {
            #expect(entry["placeholder"] is String && entry["averageColor"] is String)
            #expect((entry["hasAlpha"] as? Bool) == (sha1 == clearSHA1 ? true : nil), "\(sha1)")
        }
        // What each opaque image's entry costs with the three fields, against without them.
        for (sha1, entry) in manifest.images where sha1 != clearSHA1 {
            var without = manifest
            without.images[sha1]?.placeholder = nil
            without.images[sha1]?.averageColor = nil
            without.images[sha1]?.hasAlpha = nil
            let added = written.count - without.jsonData().count
            #expect(added <= 92, "\(entry.sources): \(added) bytes")
        }
        // Read back, an opaque entry says false, not "unknown".
        #expect(manifest.images.filter { $0.key != clearSHA1 }.values.allSatisfy { $0.hasAlpha == false })
        #expect(manifest.images.count == 6)
    }

    @Test("an entry without hasAlpha reads as false when it has a placeholder, as unknown when it has neither")
    func absentHasAlpha() throws {
        let folder = try Self.project()
        var text = String(decoding: try folder.read("build/variants/manifest.json"), as: UTF8.self)
        #expect(!text.contains("\"hasAlpha\" : false"))
        #expect(text.contains("\"hasAlpha\" : true"))
        let manifest = try Self.manifest(folder)
        let (_, quadrants) = try Self.entry(manifest, source: "photos/quadrants.jpg")
        #expect(quadrants.hasAlpha == false)
        // A manifest written before placeholders: no field at all.
        let placeholder = try #require(quadrants.placeholder)
        text = text.replacingOccurrences(of: "\"placeholder\" : \"\(placeholder)\",", with: "")
        let old = try Manifest(jsonData: Data(text.utf8))
        #expect(try Self.entry(old, source: "photos/quadrants.jpg").1.hasAlpha == nil)
    }

    @Test(
        "when the manifest grows past 16,384 images the index moves to 3-digit prefixes, and back, leaving no stale file"
    )
    func indexLayoutChanges() throws {
        let folder = try Self.project()
        let manifestFolder = try Directory.open(folder.path("build/variants"))
        var manifest = try Self.manifest(folder)
        let built = manifest
        // Copies of a built entry under generated SHA1s, up to one image more than 2 digits hold.
        let template = try #require(manifest.images.values.first)
        var counter = 0
        while manifest.images.count <= 16_384 {
            counter += 1
            let digits = String(counter, radix: 16)
            manifest.images[String(repeating: "0", count: 40 - digits.count) + digits] = template
        }
        let writer = ManifestIndexWriter(manifestFolder: manifestFolder)
        try writer.write(manifest)
        var names = Set(folder.files(under: "build/variants/index").map { String($0.split(separator: "/").last ?? "") })
        #expect(names.count == 4_096 + 1)
        #expect(names.contains("abc.json") && !names.contains("ab.json"))
        #expect(writer.isComplete)
        #expect(writer.problems(for: manifest).isEmpty)
        #expect(!writer.problems(for: built).isEmpty, "the small manifest's index is not this one")

        try writer.write(built)
        names = Set(folder.files(under: "build/variants/index").map { String($0.split(separator: "/").last ?? "") })
        #expect(names.count == 256 + 1)
        #expect(names.contains("ab.json") && !names.contains("abc.json"))
        #expect(try VerifyTests.verify(folder).problems.isEmpty)
    }

    @Test("verify reports a prefix file the index's layout does not name")
    func staleIndexFile() throws {
        let folder = try Self.project()
        try folder.write("{\"images\":{},\"version\":1}\n", to: "build/variants/index/abc.json")
        let problems = try VerifyTests.verify(folder).problems
        #expect(problems.contains { $0.path.hasSuffix("index/abc.json") }, "\(problems)")
    }
}

/// liborc 0.4.33 keeps the code of the vector programs libvips compiles for a reduction without
/// a lock, and `ladder verify`, which fits every placeholder's picture in 100 x 100 on each of
/// its threads, crashed in one run out of three on 3,000 photos (`Imaging.reducingAlone`).
@Suite("Placeholder pictures on many threads")
struct PlaceholderThreadsTests {
    @Test("a placeholder's picture is made only while no other thread reduces an image")
    func reducesAlone() throws {
        TestImages.start()
        let input = try PlaceholderInput(decoding: TestImages.gradientJPEG(width: 160, height: 120, seed: 5))
        let order = Mutex<[String]>([])
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread {
            try? Imaging.reducingAlone { () throws(ImagingError) in
                holding.signal()
                Thread.sleep(forTimeInterval: 0.5)
                order.withLock { $0.append("other thread done") }
            }
            done.leave()
        }.start()
        holding.wait()
        let picture = try input.thumbHashPicture()
        order.withLock { $0.append("placeholder made") }
        done.wait()
        #expect(picture.width == 100 && picture.height == 75)
        #expect(order.withLock { $0 } == ["other thread done", "placeholder made"])
    }
}
