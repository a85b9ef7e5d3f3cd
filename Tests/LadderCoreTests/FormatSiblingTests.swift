import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// `"formats"` on a variant: WebP, AVIF and JPEG XL siblings of the JPEG rung, checked with each
/// format's own decoder (dwebp, avifdec, djxl) rather than ladder's.
@Suite("Format siblings", .serialized)
struct FormatSiblingTests {
    static let allFormats = #"["webp", "avif", "jxl"]"#
    static let siblingTools =
        (ExternalTools.dwebp != nil && ExternalTools.avifdec != nil && ExternalTools.djxl != nil) || ExternalTools.inCI

    /// A folder with two generated photos and flat art (where WebP is as close as the JPEG in
    /// fewer bytes) and a pipeline asking for every format on every variant.
    static func project(formats: String = allFormats) throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("ladder-siblings")
        try folder.write(TestImages.cameraJPEG(width: 320, height: 240), to: "photos/camera.jpg")
        try folder.write(TestImages.gradientJPEG(width: 240, height: 180, seed: 3), to: "photos/gradient.jpg")
        try folder.write(AdversarialImages.flatArt(side: 300).encoded(as: ".png"), to: "photos/flat-art.png")
        try Pipelines.write(
            """
            {"version": 1, "sources": ["photos"], "output": "out", "variants": {
              "small_thumb": {"maxWidth": 48, "maxHeight": 48, "formats": \(formats)},
              "large_thumb": {"maxWidth": 160, "maxHeight": 160, "formats": \(formats)},
              "full": {"maxWidth": 320, "maxHeight": 320, "formats": \(formats)}}}
            """, in: folder)
        return folder
    }

    static func manifest(in folder: TemporaryDirectory) throws -> Manifest {
        try Manifest(jsonData: Data(contentsOf: URL(fileURLWithPath: folder.path("out/manifest.json"))))
    }

    static func bytes(_ path: String, in folder: TemporaryDirectory) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path("out/" + path))))
    }

    @Test(
        "every sibling decodes in its format's own decoder at the rung's size, and every jxl rebuilds its JPEG byte for byte",
        .enabled(if: siblingTools, "dwebp, avifdec or djxl is not installed"))
    func siblingsDecodeElsewhere() throws {
        let dwebp = try ExternalTools.require(ExternalTools.dwebp, "webp (dwebp)")
        let avifdec = try ExternalTools.require(ExternalTools.avifdec, "libavif-bin (avifdec)")
        let djxl = try ExternalTools.require(ExternalTools.djxl, "libjxl-tools (djxl)")
        let folder = try Self.project()
        let report = try Pipelines.build(in: folder)
        let manifest = try Self.manifest(in: folder)
        #expect(manifest.images.count == 3)
        let requested = 3 * 3 * 3
        #expect(
            report.siblingsWritten.values.reduce(0, +) + report.siblingsSkipped.values.reduce(0, +) == requested,
            "each sibling asked for is written or counted as skipped")
        var checked: [SiblingFormat: Int] = [:]
        for entry in manifest.images.values {
            for (name, variant) in entry.variants {
                let jpeg = try Self.bytes(variant.path, in: folder)
                for (formatName, sibling) in variant.formats ?? [:] {
                    let format = try #require(SiblingFormat(rawValue: formatName))
                    let file = folder.path("out/" + sibling.path)
                    let data = try Self.bytes(sibling.path, in: folder)
                    #expect(data.count == sibling.bytes && Checksum.hex(.sha256, of: data) == sibling.sha256)
                    #expect(data.count < jpeg.count, "\(name) \(formatName): a sibling is smaller than its JPEG")
                    #expect(sibling.path == variant.path.dropLast(3) + format.fileExtension)
                    let scratch = folder.path("decoded-\(name)-\(formatName)")
                    switch format {
                    case .webp:
                        try ExternalTools.run(dwebp, ["-quiet", file, "-ppm", "-o", scratch])
                        let picture = ExternalTools.parsePGM(
                            [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch))))
                        #expect(picture.width == variant.width && picture.height == variant.height)
                    case .avif:
                        try ExternalTools.run(avifdec, [file, scratch + ".y4m"])
                        let header = String(
                            decoding: try Data(contentsOf: URL(fileURLWithPath: scratch + ".y4m")).prefix(64),
                            as: UTF8.self)
                        #expect(header.contains(" W\(variant.width) H\(variant.height) "), "\(header)")
                    case .jxl:
                        try ExternalTools.run(djxl, [file, scratch + ".jpg", "--quiet"])
                        let rebuilt = [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch + ".jpg")))
                        #expect(rebuilt == jpeg, "\(name): djxl rebuilds the JPEG rung byte for byte")
                    }
                    checked[format, default: 0] += 1
                }
            }
        }
        // Beyond the smallest thumbnails, whose JPEG XL container outweighs what recompression saves.
        #expect(checked[.jxl] ?? 0 >= 4 && checked[.avif] ?? 0 >= 4 && checked[.webp] ?? 0 >= 1, "\(checked)")
        // The index carries the same siblings.
        for (sha1, entry) in manifest.images {
            let indexPath = "out/" + ManifestIndex.path(forSHA1: sha1, prefixLength: 2)
            let index = try ManifestIndex(jsonData: Data(contentsOf: URL(fileURLWithPath: folder.path(indexPath))))
            for (name, variant) in entry.variants {
                #expect(index.images[sha1]?.variants[name]?.formats == variant.formats)
            }
        }
    }

    @Test(
        "a JPEG XL sibling of a tiny thumbnail, whose container outweighs what recompression saves, is skipped and counted"
    )
    func largerSiblingSkipped() throws {
        let folder = TemporaryDirectory("ladder-siblings-tiny")
        try folder.write(TestImages.gradientJPEG(width: 48, height: 36), to: "photos/tiny.jpg")
        try Pipelines.write(
            #"{"version": 1, "sources": ["photos"], "output": "out", "variants": {"small_thumb": {"formats": ["jxl"]}}}"#,
            in: folder)
        let report = try Pipelines.build(in: folder)
        #expect(report.siblingsSkipped == [.jxl: 1])
        #expect(report.siblingsWritten.isEmpty)
        let variant = try #require(try Self.manifest(in: folder).images.values.first?.variants["small_thumb"])
        #expect(variant.formats == nil, "no sibling, no formats field")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path("out"))
        #expect(!files.contains { $0.hasSuffix(".jxl") }, "and no file")
    }

    @Test("adding formats to a variant makes it again under a new name, and a rebuild after that does nothing")
    func formatsInFingerprint() throws {
        let folder = try Self.project(formats: "[]")
        try Pipelines.build(in: folder)
        let before = try Self.manifest(in: folder)
        let project = try Self.project(formats: #"["jxl"]"#)
        try FileManager.default.removeItem(atPath: project.path("photos"))
        try Pipelines.write(
            try String(contentsOfFile: project.path("pipeline.json"), encoding: .utf8), in: folder)
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 3)
        let after = try Self.manifest(in: folder)
        for (sha1, entry) in after.images {
            for (name, variant) in entry.variants {
                #expect(variant.recipe != before.images[sha1]?.variants[name]?.recipe)
            }
            #expect(entry.variants["full"]?.formats?["jxl"] != nil)
        }
        let again = try Pipelines.build(in: folder)
        #expect(again.built == 0 && again.filesWritten == 0)
        // A sibling deleted by hand is made again.
        let sibling = try #require(after.images.values.first?.variants["full"]?.formats?["jxl"])
        try FileManager.default.removeItem(atPath: folder.path("out/" + sibling.path))
        #expect(try Pipelines.build(in: folder).built == 1)
        #expect(FileManager.default.fileExists(atPath: folder.path("out/" + sibling.path)))
    }

    @Test("a sibling deleted by hand is made again by a build that would otherwise be a no-op")
    func deletedSiblingAfterNoOp() throws {
        let folder = try Self.project(formats: #"["jxl"]"#)
        // Sources old enough for the build record to trust them (StatCache.racyWindow).
        let anHourAgo = Date().addingTimeInterval(-3600)
        for name in ["camera", "gradient"] {
            try FileManager.default.setAttributes(
                [.modificationDate: anHourAgo], ofItemAtPath: folder.path("photos/\(name).jpg"))
        }
        Thread.sleep(forTimeInterval: 2.1)
        try Pipelines.build(in: folder)
        #expect(try Pipelines.build(in: folder).built == 0)
        let sibling = try #require(try Self.manifest(in: folder).images.values.first?.variants["full"]?.formats?["jxl"])
        try FileManager.default.removeItem(atPath: folder.path("out/" + sibling.path))
        #expect(try Pipelines.build(in: folder).built == 1)
        #expect(FileManager.default.fileExists(atPath: folder.path("out/" + sibling.path)))
    }

    @Test("flipping one byte of any sibling is reported by verify, and so is a missing one")
    func verifyCatchesDamage() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder)
        let configuration = try Pipelines.configuration(in: folder)
        #expect(Verifier(configuration: configuration).run().problems.isEmpty)
        let manifest = try Self.manifest(in: folder)
        let siblings = manifest.images.values.flatMap { $0.variants.values.flatMap { ($0.formats ?? [:]).values } }
        #expect(siblings.count >= 10)
        for sibling in siblings {
            let path = folder.path("out/" + sibling.path)
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            var damaged = [UInt8](original)
            damaged[damaged.count / 2] ^= 0x01
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let problems = Verifier(configuration: configuration).run().problems
            #expect(problems.contains { $0.path.hasSuffix(sibling.path) && $0.kind == .checksum }, "\(sibling.path)")
            try original.write(to: URL(fileURLWithPath: path))
        }
        let gone = try #require(siblings.first)
        try FileManager.default.removeItem(atPath: folder.path("out/" + gone.path))
        let problems = Verifier(configuration: configuration).run().problems
        #expect(problems.contains { $0.path.hasSuffix(gone.path) && $0.kind == .missing })
    }

    @Test("a jxl sibling that decodes but rebuilds another JPEG than its rung is reported")
    func verifyCatchesWrongReconstruction() throws {
        let folder = try Self.project(formats: #"["jxl"]"#)
        try Pipelines.build(in: folder)
        var manifest = try Self.manifest(in: folder)
        let (sha1, entry) = try #require(manifest.images.first)
        let full = try #require(entry.variants["full"])
        let small = try #require(entry.variants["small_thumb"])
        // The full variant's jxl replaced by a valid recompression of the small thumbnail, with
        // the manifest recording its bytes and SHA-256: only the reconstruction can tell.
        let other = try JPEGXL.recompressing(jpeg: Self.bytes(small.path, in: folder), effort: 7)
        let path = try #require(full.formats?["jxl"]?.path)
        try Data(other).write(to: URL(fileURLWithPath: folder.path("out/" + path)))
        manifest.images[sha1]?.variants["full"]?.formats?["jxl"] = Manifest.FormatEntry(
            path: path, bytes: other.count, sha256: Checksum.hex(.sha256, of: other))
        try manifest.jsonData().write(to: URL(fileURLWithPath: folder.path("out/manifest.json")))
        let problems = Verifier(configuration: try Pipelines.configuration(in: folder)).run().problems
        #expect(problems.contains { $0.path.hasSuffix(path) && $0.kind == .jxlReconstruction })
        #expect(problems.contains { $0.path.hasSuffix(path) && $0.kind == .siblingDimensions })
        #expect(!problems.contains { $0.path.hasSuffix(path) && $0.kind == .checksum })
    }

    @Test("a sibling that is another format under the right name is reported; intact siblings pass --deep")
    func verifyChecksFormatAndDecodes() throws {
        let folder = try Self.project(formats: #"["avif", "jxl"]"#)
        try Pipelines.build(in: folder)
        let configuration = try Pipelines.configuration(in: folder)
        #expect(Verifier(configuration: configuration, options: Verifier.Options(deep: true)).run().problems.isEmpty)
        let manifest = try Self.manifest(in: folder)
        let variant = try #require(
            manifest.images.values.compactMap { $0.variants["large_thumb"] }.first { $0.formats?["avif"] != nil })
        let avif = try #require(variant.formats?["avif"])
        // A JPEG where the AVIF belongs.
        try Data(try Self.bytes(variant.path, in: folder)).write(
            to: URL(fileURLWithPath: folder.path("out/" + avif.path)))
        let problems = Verifier(configuration: configuration).run().problems
        #expect(
            problems.contains {
                $0.path.hasSuffix(avif.path) && $0.kind == .siblingUndecodable && $0.message.contains("a JPEG file")
            })
    }
}
