import Foundation
import LadderCLI
import Testing

/// `ladder check` as a designer and a pre-commit hook run it.
@Suite("ladder check")
struct CheckCommandTests {
    @Test("warnings alone exit 0; each names the file and says how to fix it")
    func warningsOnly() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "photos/small.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = runLadder(["check", "--config", folder.path("pipeline.json")])
        #expect(result.code == .success)
        #expect(result.output.contains("photos/small.jpg\n  warning: 300x200 is smaller than full (2560x2560)"))
        #expect(result.output.contains("    fix: "))
        #expect(result.output.hasSuffix("1 source checked: 0 errors, 1 warning in 1 file\n"))
    }

    @Test("a file that cannot be built exits 1, and --json lists every finding")
    func errorsAndJSON() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 3000, height: 2000), to: "photos/good.jpg")
        try folder.write("not an image", to: "photos/notes.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = runLadder(["check", "--config", folder.path("pipeline.json"), "--json"])
        #expect(result.code == .failure)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        #expect(object["sources"] as? Int == 2 && object["errors"] as? Int == 1 && object["warnings"] as? Int == 0)
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["photos/notes.jpg"])
        let finding = try #require((files.first?["findings"] as? [[String: String]])?.first)
        #expect(finding["severity"] == "error" && finding["kind"] == "not-an-image")
        #expect(finding["fix"]?.isEmpty == false)
    }

    @Test("--quiet prints only the errors and the count")
    func quiet() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "photos/small.jpg")
        try folder.write("not an image", to: "photos/notes.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = runLadder(["check", "--config", folder.path("pipeline.json"), "--quiet"])
        #expect(result.code == .failure)
        #expect(!result.output.contains("small.jpg"))
        #expect(result.output.contains("photos/notes.jpg\n  error: "))
    }

    @Test("a clean export with XMP and a Photoshop IPTC block prints the summary line and nothing else")
    func cleanExport() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(
            TestImages.exportJPEG(
                width: 3000, height: 2000, xmp: TestImages.xmpPacket(), iptc: TestImages.photoshopIPTC()),
            to: "photos/wallpaper.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = runLadder(["check", "--config", folder.path("pipeline.json")])
        #expect(result.code == .success)
        #expect(result.output == "1 source checked: nothing to fix\n")
        #expect(result.error == "")
    }

    @Test("personal data is info (a warning with --strict), and --json marks it so, keeping its keys")
    func personalDataLevels() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.cameraJPEG(width: 3000, height: 2000), to: "photos/camera.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let config = folder.path("pipeline.json")

        let plain = runLadder(["check", "--config", config])
        #expect(plain.code == .success)
        #expect(plain.output.contains("photos/camera.jpg\n  info: the original carries the GPS position"))
        #expect(plain.output.hasSuffix("1 source checked: 0 errors, 0 warnings, 2 info in 1 file\n"))
        #expect(!plain.output.contains("Ada Lovelace") && !plain.output.contains("51.5"))
        #expect(!runLadder(["check", "--config", config, "--quiet"]).output.contains("info:"))

        let strict = runLadder(["check", "--config", config, "--strict"])
        #expect(strict.code == .success)
        #expect(strict.output.contains("  warning: the original carries the GPS position"))
        #expect(strict.output.hasSuffix("0 errors, 2 warnings in 1 file\n"))

        let json = runLadder(["check", "--config", config, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        for key in ["ok", "sources", "errors", "warnings", "files"] { #expect(object[key] != nil, "\(key)") }
        #expect(object["warnings"] as? Int == 0 && object["info"] as? Int == 2)
        let files = try #require(object["files"] as? [[String: Any]])
        let findings = try #require(files.first?["findings"] as? [[String: String]])
        #expect(findings.map { $0["severity"] } == ["info", "info"])
        #expect(Set(findings.compactMap { $0["kind"] }) == ["gps", "personal-metadata"])
    }
}

/// `ladder check` on the real files of ../shared/corpus, run as users run it (with workers).
@Suite("Corpus check", .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)))
struct CorpusCheckTests {
    @Test("GPS-tagged, CMYK, wide-gamut, transparent and tiny files in exif/ and formats/ are named correctly")
    func corpus() throws {
        _ = try Corpus.required()
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        _ = executable
        let folder = TemporaryDirectory()
        let sources = try ["exif", "formats"].map { try #require(Corpus.path($0)) }
        try folder.write(
            "{\"sources\": [" + sources.map { "\"\($0)\"" }.joined(separator: ", ") + "]}", to: "pipeline.json")
        let result = try LadderExecutable.run(["check", "--json"], in: folder.path)
        #expect(result.status == 1, "the corpus holds files no decoder here reads")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        var flagged: [String: Set<String>] = [:]
        for file in try #require(object["files"] as? [[String: Any]]) {
            let name = try #require((file["path"] as? String)?.split(separator: "/").last.map(String.init))
            for finding in try #require(file["findings"] as? [[String: String]]) {
                flagged[finding["kind"]!, default: []].insert(name)
            }
        }
        // GPS positions; not the Samsung's 0° 0° nor the Leica's void fix.
        let located: Set = [
            "Apple_iPhone_6.jpg", "Apple_iPhone_5_orient3.jpg", "Nexus_4.jpg", "Oppo_R7_Plus.jpg",
            "Nokia_Lumia_800.jpg", "Olympus_FE230-X790.jpg", "HTC_Desire.jpg", "Sony_DSC-HX5V.jpg",
            "Issue_508_1x1_gps.jpg", "Issue_173_negative_altitude.jpg",
        ]
        #expect(located.isSubset(of: flagged["gps"] ?? []))
        #expect(flagged["gps"]?.contains("Samsung_Galaxy_S_gps_zero_orient6.jpg") == false)
        #expect(flagged["gps"]?.contains("Leica_T_orient8_void_gps.jpg") == false)
        #expect(
            flagged["cmyk"] == [
                "Channel_digital_image_CMYK_color.jpg", "Channel_digital_image_CMYK_color_no_profile.jpg",
                "Multiple_ICC_segments_cmyk.jpg", "pil_sample_cmyk.jpg", "fogra-0-100-100-0_cmyk.tif",
                "tiff_strip_cmyk_jpeg.tif",
            ])
        let wide: Set = [
            "P3-sRGB-color-ring.jpg", "R2020-sRGB-color-ring.jpg", "sample_a98_icc.jpg", "Canon_EOS_7D_adobergb.jpg",
            "xmp_test_adobergb.jpg", "p3.png", "prophoto_1x1.png",
        ]
        #expect(wide.isSubset(of: flagged["wide-gamut"] ?? []))
        #expect(flagged["wide-gamut"]?.contains("progressive_cat_icc.jpg") == false, "an sRGB profile")
        let transparent: Set = [
            "blackbug_alpha.png", "5_webp_a_alpha.webp", "basn6a16.png", "pil123rgba_interlaced.png",
            "dotnet-256x256-alpha-palette.png",
        ]
        #expect(transparent.isSubset(of: flagged["alpha"] ?? []))
        #expect(flagged["alpha"]?.contains("testorig.jpg") == false)
        let tiny: Set = ["prophoto_1x1.png", "s01n3p01_1x1.png", "multiple_exif_1x1.jpg", "Issue_508_1x1_gps.jpg"]
        #expect(tiny.isSubset(of: flagged["tiny"] ?? []))
        #expect(flagged["unsupported"]?.contains("monkey12.jpg") == true, "12-bit JPEG")
    }
}

/// `ladder check` on ../shared/corpus/exif: real camera files, whose GPS tags are known from
/// ExifTool's reading recorded in ../shared/corpus/manifest.json (an independent oracle).
@Suite("Corpus check of personal data", .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)))
struct CorpusPersonalDataTests {
    /// The kinds that make a variant come out otherwise than expected: the only warnings.
    static let actionKinds: Set = [
        "not-upscaled", "tiny", "cmyk", "wide-gamut", "alpha", "animated", "duplicate", "misnamed", "skipped",
    ]

    /// The exif/ files whose GPSLatitude and GPSLongitude ExifTool read as a position (numbers,
    /// not both 0).
    static func locatedByExifTool() throws -> Set<String> {
        _ = try Corpus.required()
        let data = try Data(contentsOf: URL(fileURLWithPath: try #require(Corpus.path("manifest.json"))))
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var located: Set<String> = []
        for entry in entries {
            guard let file = entry["file"] as? String, file.hasPrefix("exif/"),
                let exif = entry["exif"] as? [String: Any],
                let latitude = exif["GPSLatitude"] as? Double, let longitude = exif["GPSLongitude"] as? Double,
                latitude != 0 || longitude != 0
            else { continue }
            located.insert(String(file.dropFirst("exif/".count)))
        }
        return located
    }

    @Test("exif/: warnings only for what changes a variant; info names every GPS-positioned file and no other")
    func exifFolder() throws {
        _ = try Corpus.required()
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        _ = executable
        let folder = TemporaryDirectory()
        try folder.write("{\"sources\": [\"\(try #require(Corpus.path("exif")))\"]}", to: "pipeline.json")
        let result = try LadderExecutable.run(["check", "--json"], in: folder.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        var bySeverity: [String: [String: Set<String>]] = [:]
        for file in try #require(object["files"] as? [[String: Any]]) {
            let name = try #require((file["path"] as? String)?.split(separator: "/").last.map(String.init))
            for finding in try #require(file["findings"] as? [[String: String]]) {
                bySeverity[finding["severity"]!, default: [:]][finding["kind"]!, default: []].insert(name)
            }
        }
        let warned = bySeverity["warning"] ?? [:]
        #expect(Set(warned.keys).isSubset(of: Self.actionKinds), "warnings: \(warned)")
        #expect(warned["tiny"]?.contains("Issue_508_1x1_gps.jpg") == true, "warnings still come")

        let located = try Self.locatedByExifTool()
        #expect(located.count >= 10)
        #expect((bySeverity["info"]?["gps"] ?? []) == located)
        #expect(Set((bySeverity["info"] ?? [:]).keys).isSubset(of: ["gps", "personal-metadata"]))
        #expect(object["info"] as? Int ?? 0 >= located.count)
    }
}
