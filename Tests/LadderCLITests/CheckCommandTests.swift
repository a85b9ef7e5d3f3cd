import Foundation
import LadderCLI
import LadderTestSupport
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
}

/// `ladder check` on the real files of ../shared/corpus, run as users run it (with workers).
@Suite("Corpus check", .enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.absenceNote)))
struct CorpusCheckTests {
    @Test("GPS-tagged, CMYK, wide-gamut, transparent and tiny files in exif/ and formats/ are named correctly")
    func corpus() throws {
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
