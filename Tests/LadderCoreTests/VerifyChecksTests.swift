import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// verify's checks that once could not fail, each held to what it must find.
@Suite("Verify checks")
struct VerifyChecksTests {
    static func save(_ manifest: Manifest, in folder: TemporaryDirectory) throws {
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        _ = try ManifestIndexWriter(manifestFolder: Directory.open(folder.path("build/variants"))).write(manifest)
    }

    @Test("a source's header read by its format's own loader is the header libvips' search finds, errors included")
    func headerByFormat() throws {
        TestImages.start()
        let files: [(name: String, bytes: [UInt8], size: (Int, Int))] = try [
            ("camera, orientation 6", TestImages.cameraJPEG(width: 320, height: 240, orientation: 6), (240, 320)),
            ("grey JPEG", TestImages.grayscaleJPEG(width: 50, height: 30), (50, 30)),
            ("CMYK JPEG", TestImages.cmykJPEG(width: 64, height: 48), (64, 48)),
            ("half-transparent PNG", TestImages.halfTransparentPNG(width: 64, height: 48), (64, 48)),
            ("16-bit PNG", TestImages.sixteenBitPNG(width: 64, height: 48), (64, 48)),
            ("PNG header only", TestImages.pngHeaderOnly(width: 300, height: 200), (300, 200)),
        ]
        for file in files {
            guard case .format(let format) = ImageFormat.sniff(file.bytes) else {
                Issue.record("\(file.name) is not sniffed as an image")
                continue
            }
            let direct = try ImageHeader(reading: file.bytes, format: format, metadata: false)
            #expect(direct == (try ImageHeader(reading: file.bytes, metadata: false)), "\(file.name)")
            #expect(direct.size.width == file.size.0 && direct.size.height == file.size.1, "\(file.name)")
        }
        // Signatures followed by nothing a loader reads: the same error either way.
        for broken in [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], [0xFF, 0xD8, 0xFF, 0xE0, 0, 2]]
            as [[UInt8]]
        {
            guard case .format(let format) = ImageFormat.sniff(broken) else {
                Issue.record("\(broken) is not sniffed as an image")
                continue
            }
            var errors: [String] = []
            for sniffed in [format, nil] {
                do {
                    _ = try ImageHeader(reading: broken, format: sniffed, metadata: false)
                    Issue.record("\(format) with nothing after its signature was read")
                } catch {
                    errors.append(error.reason)
                }
            }
            #expect(errors.count == 2 && errors[0] == errors[1] && !errors[0].isEmpty, "\(errors)")
        }
    }

    @Test("a PNG's or JPEG's header read by libpng or libjpeg is libvips' header, or is left to libvips")
    func frameHeaderIsLibvips() throws {
        TestImages.start()
        func pixels(_ bands: Int) -> [UInt8] { (0..<(24 * 16 * bands)).map { UInt8(truncatingIfNeeded: $0 * 7) } }
        func file(_ bands: Int, _ space: Image.ColorSpace, _ suffix: String = ".png") throws -> [UInt8] {
            try Image(pixels: pixels(bands), width: 24, height: 16, bands: bands, space: space).encoded(as: suffix)
        }
        /// `file` with a chunk spliced in after its IHDR.
        func spliced(_ file: [UInt8], _ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let chunk = TestImages.bigEndian(UInt32(data.count)) + body + TestImages.bigEndian(TestImages.crc32(body))
            return Array(file[..<33]) + chunk + Array(file[33...])
        }
        let camera = try TestImages.cameraJPEG(width: 320, height: 240, orientation: 6)
        // Each file, and whether libpng or libjpeg can vouch for its header.
        let files: [(name: String, bytes: [UInt8], read: Bool)] = try [
            ("grey PNG", file(1, .grayscale), true),
            ("grey and alpha PNG", file(2, .grayscale), true),
            ("RGB PNG", file(3, .sRGB), true),
            ("RGBA PNG", file(4, .sRGB), true),
            ("palette PNG", file(3, .sRGB, ".png[palette]"), true),
            ("palette PNG with alpha", file(4, .sRGB, ".png[palette]"), true),
            ("1-bit grey PNG", file(1, .grayscale, ".png[bitdepth=1]"), true),
            ("interlaced PNG", file(3, .sRGB, ".png[interlace]"), true),
            (
                "16-bit grey PNG",
                Image(pixels: pixels(1), width: 24, height: 16, bands: 1, space: .grayscale)
                    .converted(to: .grey16).encoded(as: ".png"), true
            ),
            ("16-bit PNG", TestImages.sixteenBitPNG(width: 64, height: 48), true),
            ("half-transparent PNG", TestImages.halfTransparentPNG(width: 64, height: 48), true),
            ("grey PNG with a transparent grey", spliced(file(1, .grayscale), "tRNS", [0, 7]), true),
            ("RGB PNG with a transparent colour", spliced(file(3, .sRGB), "tRNS", [0, 7, 0, 14, 0, 21]), true),
            ("PNG header only", TestImages.pngHeaderOnly(width: 300, height: 200), true),
            ("PNG with EXIF", spliced(file(3, .sRGB), "eXIf", Array("MM\0*\0\0\0\u{8}\0\0\0\0\0\0".utf8)), false),
            ("grey JPEG", file(1, .grayscale, ".jpg[strip]"), true),
            ("RGB JPEG", file(3, .sRGB, ".jpg[strip]"), true),
            ("progressive JPEG", file(3, .sRGB, ".jpg[strip,interlace]"), true),
            ("CMYK JPEG", Image(decoding: TestImages.cmykJPEG(width: 64, height: 48)).encoded(as: ".jpg[strip]"), true),
            // libvips writes EXIF into the JPEGs it makes: its orientation is libvips' to read.
            ("JPEG with EXIF", TestImages.gradientJPEG(width: 40, height: 30), false),
            ("camera JPEG, orientation 6", camera, false),
            ("JPEG cut before its scan", Array(camera.prefix(40)), false),
        ]
        for file in files {
            guard case .format(let format) = ImageFormat.sniff(file.bytes) else {
                Issue.record("\(file.name) is not sniffed as an image")
                continue
            }
            let frame = FrameHeader(reading: file.bytes, format: format)
            #expect((frame != nil) == file.read, "\(file.name)")
            guard let frame else { continue }
            let libvips = try ImageHeader(reading: file.bytes, metadata: false)
            #expect(frame.format.rawValue == libvips.format, "\(file.name)")
            #expect(frame.size == libvips.storedSize && libvips.orientation == 1, "\(file.name)")
            #expect(frame.bands == libvips.bands && frame.hasAlpha == libvips.hasAlpha, "\(file.name): \(libvips)")
        }
    }

    @Test(
        "every corpus PNG and JPEG whose header libpng or libjpeg reads has libvips' header",
        .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)))
    func frameHeaderOfTheCorpus() throws {
        TestImages.start()
        let root = try Corpus.required()
        var read = 0
        for folder in try FileManager.default.contentsOfDirectory(atPath: root).sorted() {
            for path in Corpus.files(in: folder) {
                guard let bytes = FileManager.default.contents(atPath: path).map([UInt8].init),
                    case .format(let format) = ImageFormat.sniff(bytes),
                    let frame = FrameHeader(reading: bytes, format: format)
                else { continue }
                let libvips = try ImageHeader(reading: bytes, metadata: false)
                #expect(
                    frame.size == libvips.storedSize && libvips.orientation == 1 && frame.bands == libvips.bands
                        && frame.hasAlpha == libvips.hasAlpha, "\(path): \(libvips)")
                read += 1
            }
        }
        #expect(read >= 5)
    }

    @Test(
        "a build with a custom scan script writes exactly that script, as djpeg reads it, and verifies",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func customScript() throws {
        // Cloudinary's "semi-progressive" script for colour, the jpgcrush one for grayscale.
        let color = "0,1,2: 0-0,0,0; 0: 1-9,0,0; 2: 1-63,0,0; 1: 1-63,0,0; 0: 10-63,0,0;"
        let grayscale = "0: 0-0,0,0; 0: 1-8,0,2; 0: 9-63,0,2; 0: 1-63,2,1; 0: 1-63,1,0;"
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 900, height: 600), to: "photos/colour.jpg")
        try folder.write(TestImages.grayscaleJPEG(width: 500, height: 400), to: "photos/grey.jpg")
        try Pipelines.write(
            #"{"sources": ["photos"], "variants": {"full": {"maxWidth": 2560, "maxHeight": 2560, "quality": 85, "progressive": {"scans": 5, "script": {"color": ""#
                + color + #"", "grayscale": ""# + grayscale + #""}}}}}"#, in: folder)
        try Pipelines.build(in: folder)
        let manifest = try VerifyTests.manifest(folder)
        #expect(manifest.images.count == 2)
        for entry in manifest.images.values {
            let full = try #require(entry.variants["full"])
            let read = try ExternalTools.djpegStructure(folder.read("build/variants/" + full.path))
            #expect(read.isProgressive)
            let expected = read.sampling.count == 1 ? grayscale : color
            #expect(read.script == (try ScanScript(parsing: expected)).description, "\(entry.sources)")
            #expect(full.script == read.script, "the manifest records the script djpeg reads")
        }
        let report = try VerifyTests.verify(folder, replay: true)
        #expect(report.isOK, "\(report.problems)")
        #expect(report.replays.count == 2)
    }

    @Test("an SSIM budget is measured by plain verify, not only with --replay: one out of reach fails it")
    func ssimBudget() throws {
        let folder = try VerifyTests.builtProject(
            photos: 1,
            pipeline: #"{"sources": ["photos"], "replay": {"budgets": {"4g": {"ssim": 0.999, "ssimSeconds": 0.2}}}}"#)
        let report = try Verifier(configuration: Pipelines.configuration(in: folder)).run()
        let budget = try #require(report.problems.first { $0.kind.rawValue == "budget" }, "\(report.problems)")
        #expect(budget.message.contains("SSIM 0.999") && budget.message.contains("over the budget of 0.2 s"))
        let timeline = try #require(report.replays.first?.timelines.first)
        #expect(timeline.events.contains { $0.ssim != nil }, "the pictures were measured")

        // A budget every picture meets at once passes.
        try Pipelines.write(
            #"{"sources": ["photos"], "replay": {"budgets": {"4g": {"ssim": 0.1, "ssimSeconds": 60}}}}"#, in: folder)
        let met = try Verifier(configuration: Pipelines.configuration(in: folder)).run()
        #expect(met.isOK, "\(met.problems)")
    }

    @Test(
        "a variant made by another libvips is stale, and verify says which versions, with or without the recipes' record"
    )
    func libraryChange() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 400, height: 300), to: "photos/p.jpg")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        var older = Imaging.versions
        older.libvips = "8.13.0"
        let configuration = try Pipelines.configuration(in: folder)
        let workers = try LadderExecutable.workers(for: configuration)
        defer { workers.shutdown() }
        _ = try Builder(configuration: configuration, workers: workers, versions: older).run()

        let stale = try VerifyTests.verify(folder).problems
        #expect(Set(stale.map(\.kind.rawValue)) == ["stale-recipe"], "\(stale)")
        #expect(stale.count == 3, "every variant")
        let change = "libvips 8.13.0 → \(Imaging.versions.libvips)"
        #expect(stale.allSatisfy { $0.message.contains(change) && $0.message.contains("run ladder build") })

        // A manifest written before ladder recorded its recipes: the generator still tells.
        var manifest = try VerifyTests.manifest(folder)
        manifest.recipes = nil
        try Self.save(manifest, in: folder)
        let unrecorded = try VerifyTests.verify(folder).problems
        #expect(unrecorded.count == 3 && unrecorded.allSatisfy { $0.message.contains(change) }, "\(unrecorded)")

        // The next build makes them again, and they verify.
        try Pipelines.build(in: folder)
        #expect(try VerifyTests.verify(folder).isOK)
    }

    @Test("hasAlpha false on a transparent source passes the header check, and --deep decodes the source to find it")
    func hasAlphaDeep() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.halfTransparentPNG(width: 120, height: 90), to: "photos/logo.png")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        var manifest = try VerifyTests.manifest(folder)
        let key = try #require(manifest.images.keys.first)
        #expect(manifest.images[key]?.hasAlpha == true, "the build saw the transparency")
        #expect(try VerifyTests.verify(folder).isOK)
        let configuration = try Pipelines.configuration(in: folder)
        #expect(Verifier(configuration: configuration, options: .init(deep: true)).run().isOK, "--deep agrees")

        manifest.images[key]?.hasAlpha = false
        try Self.save(manifest, in: folder)
        #expect(try VerifyTests.verify(folder).isOK, "an alpha channel may be unused: only a decode tells")
        let deep = Verifier(configuration: configuration, options: .init(deep: true)).run().problems
        #expect(deep.map(\.kind.rawValue) == ["has-alpha"], "\(deep)")
        #expect(deep.first?.message.contains("some pixels of the source are transparent") == true)
    }

    @Test("an alpha channel every pixel of which is opaque gives hasAlpha false, which --deep confirms")
    func opaqueAlpha() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let opaque = AdversarialImages.rgba(64, 48) { x, y in [UInt8(x * 4), UInt8(y * 5), 90, 255] }
        try folder.write(try opaque.encoded(as: ".png"), to: "photos/opaque.png")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        #expect(try VerifyTests.manifest(folder).images.values.first?.hasAlpha == false)
        let configuration = try Pipelines.configuration(in: folder)
        let report = Verifier(configuration: configuration, options: .init(deep: true)).run()
        #expect(report.isOK, "\(report.problems)")
    }

    @Test("when the variant the placeholder is made of does not decode, that is a problem, not a skipped check")
    func placeholderVariantUndecodable() throws {
        let folder = try VerifyTests.builtProject(photos: 1)
        var manifest = try VerifyTests.manifest(folder)
        let key = try #require(manifest.images.keys.first)
        let thumb = try #require(manifest.images[key]?.variants["small_thumb"])
        // A Huffman table declaring 400 codes after the frame header: the segments walk, the
        // decoder refuses it. Recorded in the manifest as if the build wrote it.
        var bytes = try folder.read("build/variants/" + thumb.path)
        let scan = try #require(try JPEGStructure(parsing: bytes).scans.first).markerOffset
        let table: [UInt8] =
            [0xFF, 0xC4, 0x01, 0xA3, 0x10] + [UInt8](repeating: 25, count: 16) + [UInt8](repeating: 0, count: 400)
        bytes = Array(bytes[..<scan]) + table + Array(bytes[scan...])
        try folder.write(bytes, to: "build/variants/" + thumb.path)
        manifest.images[key]?.variants["small_thumb"]?.bytes = bytes.count
        manifest.images[key]?.variants["small_thumb"]?.sha256 = Checksum.hex(.sha256, of: bytes)
        try Self.save(manifest, in: folder)
        let problems = try VerifyTests.verify(folder).problems
        let undecodable = problems.filter { $0.kind.rawValue == "undecodable" }
        #expect(undecodable.contains { $0.message.contains("placeholder and averageColor") }, "\(problems)")
    }

    @Test(
        "the replay's final picture is a one-shot decode of the file; a truncated file has none and does not match it")
    func oneShotDecode() throws {
        TestImages.start()
        let jpeg = try TestImages.gradient(width: 480, height: 320).jpegEncoded(
            .init(quality: 85, fullChroma: false, scans: ScanScript.recommendedColor.scans))
        let replay = ProgressiveReplay(options: .init(expectedScans: 5))
        let (report, final) = replay.replayKeepingFinal(jpeg, path: "p.jpg")
        let picture = try #require(final)
        // In colour, as the replay renders for the screen's measure (luma alone without a view).
        #expect(picture == (try DecodedPixels(decodingJPEG: jpeg)))
        #expect(report.matchesOneShotDecode)
        #expect(report.scans.last?.psnr == 99 && report.scans.last?.ssim == 1)
        #expect(report.scans.dropLast().allSatisfy { $0.psnr < 99 })

        let cut = Array(jpeg.prefix(jpeg.count * 3 / 4))
        let (truncated, none) = replay.replayKeepingFinal(cut, path: "p.jpg")
        #expect(none == nil && !truncated.matchesOneShotDecode)
        #expect(truncated.problems.map(\.kind.rawValue).contains("truncated"))
    }
}
