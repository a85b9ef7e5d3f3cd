import Foundation
import LadderCore
import LadderManifest
import LadderTestSupport
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
        let average = try #require(quadrants.averageColor.flatMap(HexColor.init))
        #expect(zip([average.red, average.green, average.blue].map(Double.init), mean).allSatisfy { abs($0 - $1) <= 4 })
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
        let problems = try VerifyTests.verify(folder).problems.filter { $0.image == sha1 && $0.kind == "placeholder-color" }
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.message.contains("averageColor #000000") })
        #expect(problems.contains { $0.message.contains("placeholder's average colour") })
    }

    @Test("the index: 256 files, the same bytes from the same inputs, each entry as the manifest says, checked by verify")
    func index() throws {
        let first = try Self.project()
        let second = try Self.project()
        let manifest = try Self.manifest(first)
        let names = first.files(under: "build/variants/index")
        #expect(names.count == 256)
        #expect(try first.contents(under: "build/variants/index") == second.contents(under: "build/variants/index"))
        for (sha1, entry) in manifest.images {
            let data = Data(try first.read("build/variants/" + ManifestIndex.path(forSHA1: sha1)))
            let index = try ManifestIndex(jsonData: data, prefix: String(sha1.prefix(2)))
            #expect(index.images[sha1] == ManifestIndex.Entry(entry))
        }
        // An index file changed or removed is a problem of kind "index".
        let path = "build/variants/" + ManifestIndex.path(forSHA1: manifest.images.keys.sorted()[0])
        try first.write("{\"images\":{},\"version\":1}\n", to: path)
        try FileManager.default.removeItem(atPath: first.path("build/variants/index/00.json"))
        let problems = try VerifyTests.verify(first).problems.filter { $0.kind == "index" }
        #expect(problems.count == 2, "\(problems)")
        // The next build puts them back.
        try Pipelines.build(in: first)
        #expect(try VerifyTests.verify(first).problems.isEmpty)
    }
}
