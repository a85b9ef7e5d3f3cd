import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// `ladder verify` after real builds, with the tampering CI must catch.
@Suite("Verify")
struct VerifyTests {
    static func builtProject(
        photos: Int = 3, pipeline: String = #"{"sources": ["photos"]}"#
    ) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<photos {
            try folder.write(TestImages.gradientJPEG(width: 600, height: 400, seed: index), to: "photos/p\(index).jpg")
        }
        try Pipelines.write(pipeline, in: folder)
        try Pipelines.build(in: folder)
        return folder
    }

    static func verify(
        _ folder: TemporaryDirectory, replay: Bool = false, profiles: [String] = []
    ) throws -> VerificationReport {
        try Verifier(
            configuration: Pipelines.configuration(in: folder), options: .init(replay: replay, profiles: profiles)
        ).run()
    }

    static func manifest(_ folder: TemporaryDirectory) throws -> Manifest {
        try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
    }

    /// The output-relative paths of every variant named `name`, sorted.
    static func files(_ name: String, in folder: TemporaryDirectory) throws -> [String] {
        try manifest(folder).images.values.compactMap { $0.variants[name]?.path }.sorted()
    }

    static func kinds(_ report: VerificationReport) -> [String] { report.problems.map(\.kind.rawValue) }

    @Test("a fresh build verifies with no problems")
    func clean() throws {
        let folder = try Self.builtProject()
        let report = try Self.verify(folder)
        #expect(report.isOK, "\(report.problems)")
        #expect(report.images == 3 && report.variants == 9)
    }

    @Test("a flipped byte, a deleted file, a baseline or a 10-scan full variant are each named")
    func tampering() throws {
        let folder = try Self.builtProject(photos: 4)
        let full = try Self.files("full", in: folder)
        var flipped = try folder.read("build/variants/" + full[0])
        flipped[flipped.count / 2] ^= 0x01
        try folder.write(flipped, to: "build/variants/" + full[0])
        try FileManager.default.removeItem(atPath: folder.path("build/variants/" + full[1]))
        let baseline = try Image(decoding: folder.read("build/variants/" + full[2])).encoded(as: ".jpg[Q=85]")
        try folder.write(baseline, to: "build/variants/" + full[2])
        let tenScans = try Image(decoding: folder.read("build/variants/" + full[3])).encoded(as: ".jpg[Q=85,interlace]")
        try folder.write(tenScans, to: "build/variants/" + full[3])

        let report = try Self.verify(folder)
        #expect(!report.isOK)
        func problems(_ file: String) -> Set<String> {
            Set(report.problems.filter { $0.path.hasSuffix(file) }.map(\.kind.rawValue))
        }
        #expect(problems(full[0]).contains("checksum"))
        #expect(problems(full[1]) == ["missing"])
        #expect(problems(full[2]).isSuperset(of: ["checksum", "not-progressive"]))
        #expect(problems(full[3]).isSuperset(of: ["checksum", "scan-count"]))
        #expect(report.problems.first { $0.kind.rawValue == "scan-count" }?.message.contains("10 scans") == true)
    }

    @Test("unknown files in the output folder and changed, added or removed sources are reported")
    func orphansAndStaleSources() throws {
        let folder = try Self.builtProject()
        try folder.write("hello", to: "build/variants/notes.txt")
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200, seed: 7), to: "photos/new.jpg")
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200, seed: 8), to: "photos/p0.jpg")
        try FileManager.default.removeItem(atPath: folder.path("photos/p1.jpg"))
        let report = try Self.verify(folder)
        let found = Set(report.problems.map { "\($0.path) \($0.kind)" })
        #expect(found.contains("build/variants/notes.txt orphan"))
        #expect(found.contains("photos/new.jpg stale"))
        #expect(found.contains("photos/p0.jpg stale"))
        #expect(found.contains("photos/p1.jpg stale"))
    }

    @Test("unknown files at every depth of the output folder are reported, names that are not UTF-8 too")
    func orphansEverywhere() throws {
        let folder = try Self.builtProject(photos: 4)
        let full = try Self.files("full", in: folder)
        let inFolder = FilePath.parent(full[0])
        try folder.write("x", to: "build/variants/\(inFolder)/stray.jpg")
        try folder.write("x", to: "build/variants/\(inFolder)/deeper/still/stray.txt")
        try folder.write("x", to: "build/variants/zz/stray.txt")
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("build/variants/\(inFolder)/link.jpg"), withDestinationPath: "/etc/hostname")
        #expect(folder.createLatin1File(in: "build/variants/\(inFolder)"))
        let report = try Self.verify(folder)
        let orphans = report.problems.filter { $0.kind.rawValue == "orphan" }.map { "\($0.path): \($0.message)" }
        #expect(
            orphans.sorted()
                == [
                    "build/variants/\(inFolder): 1 name(s) that are not valid UTF-8, which no manifest can know",
                    "build/variants/\(inFolder)/deeper/still/stray.txt: a file the manifest does not know",
                    "build/variants/\(inFolder)/link.jpg: a symbolic link the manifest does not know",
                    "build/variants/\(inFolder)/stray.jpg: a file the manifest does not know",
                    "build/variants/zz/stray.txt: a file the manifest does not know",
                ].sorted(), "\(orphans)")
        #expect(report.problems.count == orphans.count, "\(report.problems)")
    }

    @Test("GPS, an orientation tag or extra tags in a variant break the metadata policy")
    func metadataPolicy() throws {
        let folder = try Self.builtProject(photos: 1)
        let path = try #require(try Self.files("large_thumb", in: folder).first)
        // A variant re-encoded by libvips with camera metadata, recorded as if the build made it,
        // so that only the metadata check can catch it.
        let camera = try TestImages.cameraJPEG(width: 640, height: 427, orientation: 6)
        let planted = try Image(decoding: camera).withMetadata(
            strings: ["exif-ifd3-GPSLatitudeRef": "N", "exif-ifd3-GPSLatitude": "51/1 30/1 0/1"],
            integers: ["orientation": 6]
        ).encoded(as: ".jpg[Q=82]")
        try folder.write(planted, to: "build/variants/" + path)
        var manifest = try Self.manifest(folder)
        let key = try #require(manifest.images.keys.first)
        manifest.images[key]?.variants["large_thumb"]?.bytes = planted.count
        manifest.images[key]?.variants["large_thumb"]?.sha256 = Checksum.hex(.sha256, of: planted)
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")

        let report = try Self.verify(folder)
        let kinds = Set(Self.kinds(report))
        #expect(kinds.isSuperset(of: ["gps", "orientation", "metadata"]))
        #expect(!kinds.contains("checksum"))
    }

    @Test("every file whose scan script the manifest records wrongly is named, also when files share a script")
    func sharedScriptMismatch() throws {
        let folder = try Self.builtProject(photos: 6)
        var manifest = try Self.manifest(folder)
        let scripts = manifest.images.values.compactMap { $0.variants["full"]?.script }
        try #require(scripts.count == 6)
        try #require(Set(scripts).count < scripts.count, "two files share a script: the second is judged as the first")
        for key in manifest.images.keys { manifest.images[key]?.variants["full"]?.script = "0,1,2: 0-0,0,0;" }
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        let report = try Self.verify(folder)
        let named = report.problems.filter { $0.kind.rawValue == "scan-script" }.map(\.path)
        #expect(named.count == 6 && Set(named).count == 6, "\(report.problems)")
    }

    @Test("a manifest path that climbs out of the output folder is reported and never followed")
    func unsafePath() throws {
        let folder = try Self.builtProject(photos: 1)
        var manifest = try Self.manifest(folder)
        let key = try #require(manifest.images.keys.first)
        manifest.images[key]?.variants["full"]?.path = "../../photos/p0.jpg"
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        let report = try Self.verify(folder)
        #expect(Self.kinds(report).contains("unsafe-path"), "\(report.problems)")
        #expect(
            !report.problems.contains { $0.path.contains("photos/p0.jpg") && $0.kind.rawValue == "checksum" },
            "the file is not read")
    }

    @Test("a missing or unreadable manifest is one clear problem")
    func badManifest() throws {
        let folder = try Self.builtProject(photos: 1)
        try folder.write("{ nope", to: "build/variants/manifest.json")
        #expect(Self.kinds(try Self.verify(folder)) == ["manifest-invalid"])
        try FileManager.default.removeItem(atPath: folder.path("build/variants/manifest.json"))
        #expect(Self.kinds(try Self.verify(folder)) == ["manifest-missing"])
    }

    @Test("with replay, every full-size variant loads in 5 scans, first picture within the budget, quality rising")
    func replay() throws {
        let folder = try Self.builtProject()
        let report = try Self.verify(folder, replay: true, profiles: ["3g"])
        #expect(report.isOK, "\(report.problems)")
        #expect(report.replays.count == 3)
        for replay in report.replays {
            #expect(replay.report.scans.count == 5)
            #expect(replay.report.matchesOneShotDecode)
            #expect(try #require(replay.report.firstPaintShare) < 0.25)
            let timeline = try #require(replay.timelines.first)
            #expect(timeline.events.first?.variant == "small_thumb", "the smallest rung comes first")
            #expect(timeline.events.last?.variant == "full")
        }
        #expect(report.medianFirstPaintShare != nil && report.medianFirstScanSSIM != nil)
    }

    @Test(
        "with replay, a thumbnail's quality is its own Y plane stretched bilinearly to the full size, against the final Y plane",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)),
        .enabled(if: ExternalTools.runs(with: ExternalTools.vips), ExternalTools.absence(ExternalTools.vipsPackage)))
    func thumbnailQualityOnLuma() throws {
        let folder = try Self.builtProject(photos: 1)
        let report = try Self.verify(folder, replay: true, profiles: ["3g"])
        let replay = try #require(report.replays.first)
        let timeline = try #require(replay.timelines.first)
        let entry = try #require(try Self.manifest(folder).images.values.first)
        let full = try #require(entry.variants["full"])
        // The oracle: libjpeg-turbo's own decoder's Y planes (djpeg -grayscale), the thumbnail's
        // stretched to the full size by libvips' bilinear interpolator, as an app's GPU shows it
        // there. Rounding may differ by a level on a few pixels: the 4th decimal may move by one.
        let final = try ExternalTools.djpegLuma(folder.read("build/variants/" + full.path))
        for name in ["small_thumb", "large_thumb"] {
            let thumbnail = try #require(entry.variants[name])
            let plane = try ExternalTools.djpegLuma(folder.read("build/variants/" + thumbnail.path))
            let scaled = try ExternalTools.vipsBilinear(
                plane.samples, width: plane.width, height: plane.height, toWidth: final.width, height: final.height)
            let expected = ImageQuality.ssim(scaled, reference: final.samples, width: final.width, height: final.height)
            let event = try #require(timeline.events.first { $0.variant == name })
            let measured = try #require(event.ssim)
            #expect(abs(measured - expected) <= 0.0001 + 1e-9, "\(name): \(measured), expected \(expected)")
        }
    }

    @Test(
        "with replay, the default build of tiny files and flat art passes: their first picture comes in the first round trip"
    )
    func replayTinyAndFlat() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        func flat(_ width: Int, _ height: Int, _ suffix: String) throws -> [UInt8] {
            let picture = TestImages.quadrants(width: width, height: height)
            return try Image(pixels: picture.pixels, width: width, height: height, bands: 3, space: .sRGB)
                .encoded(as: suffix)
        }
        // Headers are most of a file of a few hundred bytes, and the DC most of flat art.
        try folder.write(flat(1, 1, ".png"), to: "photos/one-pixel.png")
        try folder.write(flat(8, 8, ".png"), to: "photos/icon.png")
        try folder.write(flat(13, 169, ".jpg[Q=90]"), to: "photos/sliver.jpg")
        try folder.write(TestImages.halfTransparentPNG(width: 32, height: 32), to: "photos/alpha.png")
        try folder.write(flat(80, 80, ".gif"), to: "photos/squares.gif")
        try folder.write(flat(2048, 1536, ".png"), to: "photos/flat-art.png")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        let build = try Pipelines.build(in: folder)
        #expect(build.failed.isEmpty, "\(build.failed)")
        let report = try Self.verify(folder, replay: true)
        #expect(report.replays.count == 6)
        #expect(report.isOK, "\(report.problems.map { "\($0.path): \($0.kind): \($0.message)" })")
    }

    @Test("a time budget that is exceeded fails verify")
    func budgets() throws {
        let folder = try Self.builtProject(
            photos: 1,
            pipeline:
                #"{"sources": ["photos"], "replay": {"budgets": {"slow-2g": {"firstPictureSeconds": 0.5, "completeSeconds": 600}}}}"#
        )
        let report = try Self.verify(folder)
        let budget = try #require(report.problems.first { $0.kind.rawValue == "budget" })
        #expect(budget.message.contains("slow-2g") && budget.message.contains("first picture"))
        #expect(
            report.problems.filter { $0.kind.rawValue == "budget" }.count == 1, "the generous complete budget holds")
    }

    @Test(
        "averageColor is the mean colour of the smallest variant as djpeg decodes it, and verify holds it to that exactly",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func placeholderMean() throws {
        // 150x95: a pixel count that is not a multiple of 16, over 256 x 16 pixels.
        let folder = try Self.builtProject(
            photos: 1,
            pipeline:
                #"{"sources": ["photos"], "variants": {"small_thumb": {"maxWidth": 150, "maxHeight": 150, "quality": 80}}}"#
        )
        var manifest = try Self.manifest(folder)
        let (sha1, entry) = try #require(manifest.images.first)
        let thumb = try #require(entry.variants["small_thumb"])
        #expect(thumb.width * thumb.height % 16 != 0 && thumb.width * thumb.height > 4096)

        // The oracle: djpeg's RGB pixels (integer DCT and fancy upsampling), summed here and
        // rounded to the nearest level.
        let picture = try ExternalTools.djpegRGB(folder.read("build/variants/" + thumb.path))
        #expect(picture.width == thumb.width && picture.height == thumb.height)
        let count = thumb.width * thumb.height
        let mean = (0..<3).map { channel in
            stride(from: channel, to: picture.samples.count, by: 3).reduce(0) { $0 + Int(picture.samples[$1]) }
        }.map { (2 * $0 + count) / (2 * count) }
        let hex = "#" + mean.map { String(format: "%02x", $0) }.joined()
        #expect(entry.averageColor == hex, "the build's averageColor is djpeg's mean of the file")

        // One level off in one channel is a problem that names both colours.
        let off = "#" + [(mean[0] + 1) % 256, mean[1], mean[2]].map { String(format: "%02x", $0) }.joined()
        manifest.images[sha1]?.averageColor = off
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        // (The index files, which carry averageColor too, no longer match the edited manifest.)
        let problems = try Self.verify(folder).problems.filter { $0.kind.rawValue != "index" }
        #expect(problems.map(\.kind.rawValue) == ["placeholder-color"], "\(problems)")
        #expect(
            problems.first?.message.contains("averageColor \(off), but the mean colour of") == true
                && problems.first?.message.hasSuffix("is \(hex)") == true, "\(problems)")
    }

    @Test("sources whose names differ only by Unicode normalization are each checked against their own entry")
    func normalizationTwins() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 6), to: "photos/caf\u{E9}.jpg")
        try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 7), to: "photos/cafe\u{301}.jpg")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        let build = try Pipelines.build(in: folder)
        #expect(build.built == 2)
        // Swift's strings compare the two names equal: a table keyed by them would give both
        // files one SHA1, in an order that changes from run to run, hence several runs.
        for _ in 0..<5 {
            let report = try Self.verify(folder)
            #expect(report.isOK, "\(report.problems)")
        }
        // Changing one of them is reported for that one alone.
        try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 8), to: "photos/cafe\u{301}.jpg")
        let stale = try Self.verify(folder).problems.filter { $0.kind.rawValue == "stale" }
        #expect(stale.count == 1 && stale.first.map { Array($0.path.utf8) } == Array("photos/cafe\u{301}.jpg".utf8))
    }
}
