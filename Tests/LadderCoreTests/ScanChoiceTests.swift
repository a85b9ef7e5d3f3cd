import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

@Suite("Scan script choice")
struct ScanChoiceTests {
    init() { TestImages.start() }

    /// The default full-size variant: 5 scans, script chosen per image.
    static let recipe = Defaults.variants.first { $0.name == "full" }!

    /// The image encoded for the default full-size variant, and the same coefficients with the
    /// fixed 5-scan script.
    static func chosenAndFixed(_ image: Image) throws -> (EncodedVariant, [UInt8]) {
        let encoded = try recipe.encoded(image, exif: nil)
        let fixed = try JPEGCoefficients(reading: encoded.bytes).written(scans: ScanScript.recommendedColor.scans)
        return (encoded, fixed)
    }

    /// The image rendered with the default variants, as a build renders it: the full-size file
    /// (its script chosen with large_thumb on screen) and large_thumb.
    static func rendered(_ image: Image) throws -> (full: [UInt8], thumbnail: [UInt8]) {
        let source = try image.encoded(as: ".png")
        let rendered = try VariantRenderer().render(
            source, variants: Defaults.variants, settings: RenderSettings(background: .white, keep: []))
        let full = try #require(rendered.variants.first { $0.name == "full" })
        let thumbnail = try #require(rendered.variants.first { $0.name == "large_thumb" })
        return (full.bytes, thumbnail.bytes)
    }

    /// How `bytes` shows on a phone's screen with `thumbnail` on it first.
    static func onScreen(_ bytes: [UInt8], after thumbnail: [UInt8]) -> ScanVersionScore {
        ScanComparison.score(version: "", bytes: bytes, screen: ComparisonScreen(firstRung: thumbnail))
    }

    /// The chosen file shows on screen as well as the best candidate whose picture beats the
    /// thumbnail within the default budget, each replayed in full (a tie within 0.002: the
    /// choice is estimated on a sample, docs/SCAN_SCRIPTS.md). Returns how the chosen file and
    /// the fixed script's show.
    static func expectBestCandidate(
        _ full: [UInt8], thumbnail: [UInt8], _ name: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (chosen: ScanVersionScore, fixed: ScanVersionScore) {
        let screen = ComparisonScreen(firstRung: thumbnail)
        let versions = try ScanComparison.compare(full, screen: screen)
        let (chosen, fixed) = (versions[0], versions[2])
        let candidates = try ScanComparison.candidates(full, screen: screen)
        let within = candidates.filter { ($0.fullShownShare ?? 1) <= Defaults.firstPaintBudget }
        let best = try #require((within.isEmpty ? candidates : within).compactMap(\.screenOverDownload).max())
        let chosenMean = try #require(chosen.screenOverDownload)
        #expect(
            chosenMean >= best - 0.002, "\(name): chosen \(chosen.script) \(chosenMean), best candidate \(best)",
            sourceLocation: sourceLocation)
        return (chosen, fixed)
    }

    @Test("pipeline.json: progressive variants choose their script unless one is given")
    func configuration() throws {
        let folder = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
        func parse(_ json: String) throws -> VariantRecipe {
            try PipelineConfiguration.parse(Data(json.utf8), file: "pipeline.json", baseDirectory: folder.path)
                .variants.first { $0.name == "full" }!
        }
        #expect(try parse(#"{"sources": ["photos"]}"#).progressive?.automatic != nil)
        #expect(
            try parse(#"{"sources": ["photos"], "variants": {"full": {"progressive": true}}}"#).progressive?.automatic
                != nil)
        let auto = try parse(
            #"{"sources": ["photos"], "replay": {"firstPaintBudget": 0.3}, "variants": {"full": {"progressive": {"scans": 6, "script": "auto"}}}}"#
        )
        #expect(auto.progressive?.automatic?.firstPictureBudget == 0.3)
        #expect(auto.progressive?.automatic?.budgetIsSet == true)
        #expect(auto.progressive?.scanCount == 6)
        // What the screen shows: large_thumb first, in a view 1280 pixels wide, unless told.
        let defaults = try parse(#"{"sources": ["photos"]}"#).progressive?.automatic
        #expect(defaults?.firstRung == "large_thumb" && defaults?.displayWidth == 1280)
        #expect(defaults?.budgetIsSet == false)
        let alone = try parse(
            #"{"sources": ["photos"], "replay": {"firstRung": "none", "displayWidth": 800}}"#
        ).progressive?.automatic
        #expect(alone?.firstRung == nil && alone?.displayWidth == 800)
        #expect {
            try parse(#"{"sources": ["photos"], "replay": {"firstRung": "medium_thumb"}}"#)
        } throws: { error in
            (error as? ConfigurationError)?.jsonPath == "$.replay.firstRung" && "\(error)".contains("large_thumb")
        }
        let fixed = try parse(
            #"{"sources": ["photos"], "variants": {"full": {"progressive": {"script": {"color": "0,1,2: 0-0,0,0; 0: 1-9,0,0; 2: 1-63,0,0; 1: 1-63,0,0; 0: 10-63,0,0;"}}}}}"#
        )
        #expect(fixed.progressive?.automatic == nil)
    }

    @Test("a noisy photo, flat art, text on colour and a gradient each get the best candidate on screen")
    func choiceDependsOnTheImage() throws {
        var scripts: [String] = []
        for image in [
            try ProgressiveSubjects.noisyPhoto(), try ProgressiveSubjects.flatArt(),
            try ProgressiveSubjects.textOnColor(), try ProgressiveSubjects.smoothGradient(),
        ] {
            let (full, thumbnail) = try Self.rendered(image)
            scripts.append(try Self.expectBestCandidate(full, thumbnail: thumbnail).chosen.script)
        }
        // Shown in full at 960 pixels with luma weighted 0.8, all four get one script;
        // camera photos in a 1280-pixel view get different ones (docs/SCAN_SCRIPTS.md, "Results").
        #expect(scripts.count == 4)
    }

    @Test("libjpeg counts exactly 5 scans in a chosen file, which decodes to the same pixels as the fixed one")
    func exactScansLossless() throws {
        for image in [try ProgressiveSubjects.noisyPhoto(), try ProgressiveSubjects.flatArt()] {
            let (chosen, fixed) = try Self.chosenAndFixed(image)
            // libjpeg itself, in buffered-image mode, is the oracle for the scan count.
            let decoder = try JPEGReplayDecoder(chosen.bytes, maximumScans: 100)
            let state = try decoder.advance(to: chosen.bytes.count)
            #expect(state.inputComplete)
            #expect(state.scansCompleted == 5)
            #expect(try DecodedPixels(decodingJPEG: chosen.bytes) == DecodedPixels(decodingJPEG: fixed))
        }
    }

    @Test("measured on the whole image, the estimated scan offsets are the written file's own")
    func offsetsAddUp() throws {
        let jpeg = try ProgressiveSubjects.textOnColor(width: 320, height: 240)
            .jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
        let chooser = ScanScriptChooser(scans: 5, firstPictureBudget: 1, scoringPixels: Int.max)
        let (coefficients, estimates) = try chooser.estimates(for: jpeg)
        #expect(estimates.count >= 5)
        for estimate in estimates {
            let written = try coefficients.written(scans: estimate.script.scans)
            let structure = try JPEGStructure(parsing: written)
            #expect(estimate.total == written.count)
            #expect(Array(estimate.showableAt.dropLast()) == structure.scans.dropFirst().map(\.dataOffset))
        }
    }

    /// A photo-sized image's baseline JPEG, as the auto path encodes it before choosing.
    static func photoSized(width: Int, height: Int) throws -> [UInt8] {
        try ProgressiveSubjects.noisyPhoto(width: width, height: height)
            .jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
    }

    @Test("the sample candidates are measured on stays within the scoring budget, whatever the image's shape")
    func sampleWithinBudget() throws {
        let chooser = ScanScriptChooser(scans: 5, firstPictureBudget: 0.25)
        for (width, height) in [(2560, 1920), (1920, 2560), (2560, 640)] {
            let (coefficients, _) = try chooser.estimates(for: try Self.photoSized(width: width, height: height))
            let sample = try coefficients.sampleWritten(scans: ScanScript.recommendedColor.scans)
            // libjpeg's own reading of the sample's size.
            let state = try JPEGReplayDecoder(sample, maximumScans: 10).advance(to: sample.count)
            #expect(state.width * state.height < width * height / 4, "\(width)x\(height)")
            // A tile over the budget at most (96x96 pixels, or as large as the measure's
            // coarsest scale needs: 208x208 for a 2560-pixel image in a 1280-pixel view).
            let image = PixelSize(width: width, height: height)
            let side = ScanScriptChooser.tileSide(
                image: image, display: ScreenQuality.displaySize(of: image, displayWidth: chooser.displayWidth))
            #expect(side >= 96 && side <= 208)
            #expect(
                state.width * state.height <= chooser.scoringPixels + side * side,
                "\(width)x\(height): a sample of \(state.width)x\(state.height)")
        }
    }

    @Test("a sample whose tiles do not fit in the image is refused with the reason, not read off its edge")
    func sampleThatDoesNotFit() throws {
        let jpeg = try Self.photoSized(width: 320, height: 240)
        // 20 iMCUs across (4:2:0), the last kept clear: 3 tiles of 6 fit, 4 do not.
        _ = try JPEGCoefficients(reading: jpeg, sample: .init(across: 3, down: 2, columns: 6, rows: 6))
        #expect {
            try JPEGCoefficients(reading: jpeg, sample: .init(across: 4, down: 1, columns: 6, rows: 6))
        } throws: { error in
            "\(error)".contains("do not fit")
        }
    }

    @Test("measured on a sample, every candidate scores as on the whole image, and the pick is the whole image's")
    func sampleTracksTheWholeImage() throws {
        let jpeg = try Self.photoSized(width: 1600, height: 1200)
        let sampled = ScanScriptChooser(scans: 5, firstPictureBudget: 1)
        let whole = ScanScriptChooser(scans: 5, firstPictureBudget: 1, scoringPixels: Int.max)
        let (coefficients, estimates) = try sampled.estimates(for: jpeg)
        let (_, exact) = try whole.estimates(for: jpeg)
        #expect(coefficients.isSampled)
        #expect(estimates.map(\.script) == exact.map(\.script))
        for (estimate, truth) in zip(estimates, exact) {
            #expect(abs(estimate.quality - truth.quality) < 0.01, "\(estimate.script)")
        }
        // The sample's pick is, measured on the whole image, as good as the best candidate
        // within 0.002 (the tie tolerance of docs/SCAN_SCRIPTS.md).
        let pick = try #require(estimates.indices.max { estimates[$0].quality < estimates[$1].quality })
        let best = try #require(exact.map(\.quality).max())
        #expect(exact[pick].quality >= best - 0.002, "picked \(exact[pick].script)")
    }

    @Test("a first-picture budget no script can meet is met as closely as possible, with advice only when it was set")
    func impossibleBudget() throws {
        let jpeg = try ProgressiveSubjects.flatArt(width: 320, height: 240)
            .jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
        let chooser = ScanScriptChooser(scans: 5, firstPictureBudget: 0.01, firstRoundTripBytes: 0)
        let choice = try chooser.choose(jpeg)
        let (_, estimates) = try chooser.estimates(for: jpeg)
        let earliest = try #require(estimates.map(\.firstPictureShare).min())
        #expect(choice.firstPictureShare == earliest, "the candidate whose first picture comes first")
        #expect(choice.budgetAdvice?.contains("more scans") == true)
        #expect(choice.budgetAdvice?.contains("replay.firstPaintBudget") == true)
        // The default budget is the build's aim, not the user's: nothing to say.
        let unset = try ScanScriptChooser(
            scans: 5, firstPictureBudget: 0.01, budgetIsSet: false, firstRoundTripBytes: 0
        )
        .choose(jpeg)
        #expect(unset.script == choice.script)
        #expect(unset.budgetAdvice == nil)
    }

    @Test("over a thumbnail, a budget only the smaller first scan meets is still met as closely as any candidate can")
    func impossibleBudgetOverAThumbnail() throws {
        let (full, thumbnail) = try ScreenQualityTests.fullAndThumbnail()
        let chooser = ScanScriptChooser(
            scans: 5, firstPictureBudget: 0.01, firstRoundTripBytes: 0, scoringPixels: Int.max, displayWidth: 200)
        let choice = try chooser.choose(full, firstRung: thumbnail)
        let (_, estimates) = try chooser.estimates(for: full, firstRung: thumbnail)
        #expect(estimates.contains { $0.script.scans[0].al == 1 }, "every candidate, the reduced DC's too")
        let earliest = try #require(estimates.map(\.firstPictureShare).min())
        #expect(choice.firstPictureShare == earliest)
        #expect(choice.budgetAdvice?.contains("replay.firstPaintBudget") == true)
    }

    @Test("a first picture within the first round trip meets any budget: no advice, the best script kept")
    func firstRoundTrip() throws {
        let jpeg = try ProgressiveSubjects.flatArt(width: 320, height: 240)
            .jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
        #expect(jpeg.count < ReplaySettings.firstRoundTripBytes)
        let choice = try ScanScriptChooser(scans: 5, firstPictureBudget: 0.01).choose(jpeg)
        let unbounded = try ScanScriptChooser(scans: 5, firstPictureBudget: 1).choose(jpeg)
        #expect(choice.budgetAdvice == nil)
        #expect(choice.script == unbounded.script, "the budget is met by every candidate")
    }

    @Test(
        "on renders, with large_thumb on screen, each chosen file is the best candidate, beating the thumbnail no later than the fixed script's in the median"
    )
    func targetsOnRenders() throws {
        var chosenPoints: [Double] = []
        var fixedPoints: [Double] = []
        for (name, image) in try ProgressiveSubjects.renders() where image.width > 640 || image.height > 640 {
            // (An image within large_thumb's box has a large_thumb as large as itself, which no
            // scan beats before the last: the budget does not apply, docs/PIPELINE.md.)
            let (full, thumbnail) = try Self.rendered(image)
            let (chosen, fixed) = try Self.expectBestCandidate(full, thumbnail: thumbnail, name)
            chosenPoints.append(chosen.fullShownShare ?? 1)
            fixedPoints.append(fixed.fullShownShare ?? 1)
        }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
        }
        #expect(chosenPoints.count == 5)
        #expect(median(chosenPoints) <= median(fixedPoints), "\(chosenPoints) against \(fixedPoints)")
        #expect(chosenPoints.allSatisfy { $0 <= Defaults.firstPaintBudget }, "\(chosenPoints)")
    }
}
