import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

@Suite("pipeline.json")
struct ConfigurationTests {
    /// Parses `json` in a folder that has a `photos` folder.
    static func parse(_ json: String) throws -> PipelineConfiguration {
        let folder = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
        return try PipelineConfiguration.parse(Data(json.utf8), file: "pipeline.json", baseDirectory: folder.path)
    }

    /// Expects `json` to be refused at `path` with a message containing `message`.
    static func expectRefused(
        _ json: String, at path: String, saying message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) { try parse(json) } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.jsonPath == path && error.message.contains(message)
        }
    }

    @Test("null is refused at its JSON path, never taken for the default")
    func nullValues() {
        Self.expectRefused(#"{"sources": ["photos"], "output": null}"#, at: "$.output", saying: "null is not a value")
        Self.expectRefused(
            #"{"sources": ["photos"], "replay": {"profiles": {"office": null}}}"#, at: "$.replay.profiles.office",
            saying: "null is not a value")
        Self.expectRefused(
            #"{"sources": ["photos"], "replay": {"budgets": {"3g": null}}}"#, at: "$.replay.budgets[\"3g\"]",
            saying: "null is not a value")
        Self.expectRefused(
            #"{"sources": ["photos"], "replay": {"budgets": {"4g": {"completeSeconds": null}}}}"#,
            at: "$.replay.budgets[\"4g\"].completeSeconds", saying: "null is not a value")
    }

    @Test("only sources is required; everything else has the documented default")
    func defaults() throws {
        let configuration = try Self.parse(#"{"sources": ["photos"]}"#)
        #expect(configuration.version == 1)
        #expect(configuration.output == "build/variants")
        #expect(configuration.manifest == "build/variants/manifest.json")
        #expect(configuration.variants.map(\.name) == ["full", "large_thumb", "small_thumb"])
        let full = try #require(configuration.variants.first { $0.name == "full" })
        #expect(full.box == PixelSize(width: 2560, height: 2560))
        #expect(full.quality == 85)
        #expect(full.progressive?.scanCount == 5)
        let small = try #require(configuration.variants.first { $0.name == "small_thumb" })
        #expect(small.box == PixelSize(width: 160, height: 160) && small.quality == 80 && small.progressive == nil)
        #expect(configuration.background == .white)
        #expect(configuration.metadata.keep.isEmpty)
        #expect(configuration.outputPrefixInManifest == "")
    }

    @Test("the contract's example pipeline is accepted as written")
    func contractExample() throws {
        let configuration = try Self.parse(
            """
            {
              "version": 1,
              "sources": ["photos"],
              "output": "build/variants",
              "manifest": "build/variants/manifest.json",
              "variants": {
                "small_thumb": { "maxWidth": 160,  "maxHeight": 160,  "quality": 80 },
                "large_thumb": { "maxWidth": 640,  "maxHeight": 640,  "quality": 82 },
                "full":        { "maxWidth": 2560, "maxHeight": 2560, "quality": 85, "progressive": { "scans": 5 } }
              }
            }
            """)
        #expect(configuration.variants.count == 3)
        #expect(configuration.variants.first { $0.name == "full" }?.progressive == .automatic(scans: 5))
    }

    @Test("\"$comment\" notes are allowed in every object, as strings, and change nothing")
    func comments() throws {
        let configuration = try Self.parse(
            """
            {"$comment": "why", "sources": ["photos"], "variants": {"$comment": "boxes",
              "full": {"$comment": "big", "maxWidth": 100, "maxHeight": 100, "quality": 80}}}
            """)
        #expect(configuration.variants.map(\.name) == ["full"], "a comment is not a variant")
        Self.expectRefused(
            #"{"sources": ["photos"], "metadata": {"$comment": 3}}"#, at: "$.metadata[\"$comment\"]",
            saying: "a comment")
    }

    @Test("a manifest in a parent of the output folder gets prefixed variant paths")

    func manifestInParent() throws {
        let configuration = try Self.parse(
            #"{"sources": ["photos"], "output": "build/variants", "manifest": "build/manifest.json"}"#)
        #expect(configuration.outputPrefixInManifest == "variants")
    }

    @Test("a custom scan script is taken, and its length sets the scan count")
    func customScript() throws {
        let configuration = try Self.parse(
            """
            {"sources": ["photos"], "variants": {"full": {"progressive": {"script": {
              "color": "0,1,2: 0-0,0,0; 0: 1-9,0,0; 2: 1-63,0,0; 1: 1-63,0,0; 0: 10-63,0,0;"}}}}}
            """)
        let full = try #require(configuration.variants.first)
        #expect(full.progressive?.color.scans[1] == JPEGScan(components: [0], ss: 1, se: 9, ah: 0, al: 0))
        #expect(full.progressive?.grayscale == .recommendedGrayscale)
    }

    @Test("formats are read per variant, each once, and a default-named variant keeps its defaults beside them")
    func formats() throws {
        let configuration = try Self.parse(
            #"{"sources": ["photos"], "variants": {"full": {"formats": ["jxl", "avif"], "avifEffort": 3}}}"#)
        let full = try #require(configuration.variants.first { $0.name == "full" })
        #expect(full.formats == [.avif, .jxl], "in SiblingFormat order")
        #expect(full.avifEffort == 3 && full.quality == 85 && full.progressive != nil)
        #expect(try Self.parse(#"{"sources": ["photos"]}"#).variants.allSatisfy { $0.formats.isEmpty })
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"formats": ["webp", "heic"]}}}"#,
            at: "$.variants.full.formats[1]", saying: "unknown format \"heic\"")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"formats": ["jpeg"]}}}"#,
            at: "$.variants.full.formats[0]", saying: "the JPEG is always written")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"formats": ["avif", "avif"]}}}"#,
            at: "$.variants.full.formats[1]", saying: "listed twice")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"avifEffort": 10}}}"#, at: "$.variants.full.avifEffort",
            saying: "from 0 to 9")
    }

    @Test("AVIF's effort follows the variant's box unless given: the searched thumbnails get the slower effort")
    func avifEffortByBox() throws {
        let defaults = try Self.parse(#"{"sources": ["photos"]}"#).variants
        let effort = { (name: String) in defaults.first { $0.name == name }?.avifEffort }
        #expect(effort("small_thumb") == Defaults.avifThumbnailEffort)
        #expect(effort("large_thumb") == Defaults.avifThumbnailEffort)
        #expect(effort("full") == Defaults.avifEffort)
        #expect(Defaults.avifThumbnailEffort != Defaults.avifEffort)
        // A thumbnail made full-size takes full size's effort, and a given effort is kept.
        let configured = try Self.parse(
            #"{"sources": ["photos"], "variants": {"large_thumb": {"maxWidth": 2560, "maxHeight": 2560}, "#
                + #""small_thumb": {"avifEffort": 5}, "hero": {"maxWidth": 320, "maxHeight": 320}}}"#
        ).variants
        #expect(configured.first { $0.name == "large_thumb" }?.avifEffort == Defaults.avifEffort)
        #expect(configured.first { $0.name == "small_thumb" }?.avifEffort == 5)
        #expect(configured.first { $0.name == "hero" }?.avifEffort == Defaults.avifThumbnailEffort)
    }

    @Test("the calibration gives each sibling format its quality for a JPEG quality, and the fingerprint covers it")
    func siblingQualities() {
        for format in [SiblingFormat.webp, .avif] {
            let points = Defaults.siblingCalibration[format] ?? []
            for point in points { #expect(Defaults.siblingQuality(format, jpegQuality: point.jpeg) == point.sibling) }
            let qualities = (1...100).map { Defaults.siblingQuality(format, jpegQuality: $0) }
            #expect(zip(qualities, qualities.dropFirst()).allSatisfy { $0 <= $1 }, "never lower for a better JPEG")
            #expect(qualities.allSatisfy { (1...100).contains($0) })
        }
        let versions = Imaging.versions
        let plain = VariantRecipe(name: "full", maxWidth: 100, maxHeight: 100, quality: 85)
        var withAVIF = plain
        withAVIF.formats = [.avif]
        var faster = withAVIF
        faster.avifEffort = 4
        let prints = [plain, withAVIF, faster].map {
            RecipeFingerprint.compute($0, background: .white, keep: [], versions: versions)
        }
        #expect(Set(prints).count == 3)
    }

    @Test("invalid values are refused before any work, naming the JSON path and what was expected")
    func pointedErrors() {
        Self.expectRefused(#"{}"#, at: "$.sources", saying: "required")
        Self.expectRefused(#"{"sources": []}"#, at: "$.sources", saying: "at least one")
        Self.expectRefused(#"{"sources": [3]}"#, at: "$.sources[0]", saying: "the number 3")
        Self.expectRefused(#"{"sources": ["photos"], "version": 2}"#, at: "$.version", saying: "newer than this ladder")
        Self.expectRefused(#"{"sources": ["photos"], "qualty": 3}"#, at: "$.qualty", saying: "unknown key")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"qualty": 90}}}"#, at: "$.variants.full.qualty",
            saying: "did you mean \"quality\"")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"quality": 120}}}"#, at: "$.variants.full.quality",
            saying: "from 1 to 100, found the number 120")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"quality": "high"}}}"#, at: "$.variants.full.quality",
            saying: "found the string \"high\"")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"hero": {"quality": 80}}}"#, at: "$.variants.hero.maxWidth",
            saying: "required")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"../x": {"maxWidth": 1, "maxHeight": 1}}}"#,
            at: #"$.variants["../x"]"#, saying: "variant name")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {}}"#, at: "$.variants", saying: "at least one variant")
        Self.expectRefused(#"{"sources": ["photos"], "background": "white"}"#, at: "$.background", saying: "#rrggbb")
        Self.expectRefused(
            #"{"sources": ["photos"], "metadata": {"keep": ["gps"]}}"#, at: "$.metadata.keep[0]",
            saying: "unknown EXIF field")
        Self.expectRefused(#"{"sources": ["photos"], "exclude": ["a[b"]}"#, at: "$.exclude[0]", saying: "']'")
        Self.expectRefused(#"{"sources": ["missing"]}"#, at: "$.sources[0]", saying: "does not exist")
        Self.expectRefused(
            #"{"sources": ["photos"], "manifest": "elsewhere/manifest.json"}"#, at: "$.manifest", saying: "parents")
        Self.expectRefused(
            #"{"sources": ["photos"], "output": "photos"}"#, at: "$.sources[0]", saying: "inside the output folder")
        Self.expectRefused(#"{"sources": ["photos"]"#, at: "$", saying: "not valid JSON")
    }

    @Test("an illegal scan script is refused at load time with the rule it breaks")
    func illegalScript() {
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"progressive": {"script": {"color": "0,1,2: 0-0,0,0; 0,1: 1-63,0,0; 2: 1-63,0,0;"}}}}}"#,
            at: "$.variants.full.progressive.script.color", saying: "an AC scan may carry only one component")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"progressive": {"scans": 3}}}}"#,
            at: "$.variants.full.progressive.scans", saying: "3 scans cannot carry a color image")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"progressive": {"script": "best"}}}}"#,
            at: "$.variants.full.progressive.script", saying: "expected \"auto\"")
        Self.expectRefused(
            #"{"sources": ["photos"], "variants": {"full": {"progressive": {"scans": 6, "script": {"color": "0,1,2: 0-0,0,0; 0: 1-63,0,1; 2: 1-63,0,0; 1: 1-63,0,0; 0: 1-63,1,0;"}}}}}"#,
            at: "$.variants.full.progressive.script", saying: "has 5 scans but the variant asks for 6")
    }

    @Test("a missing configuration file is reported with a way forward")
    func missingFile() {
        #expect { try PipelineConfiguration.load(from: "/nonexistent/pipeline.json") } throws: { error in
            "\(error)".contains("does not exist") && "\(error)".contains("--config")
        }
    }
}
