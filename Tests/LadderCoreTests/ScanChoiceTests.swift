import Foundation
import LadderCore
import LadderImaging
import Testing

@Suite("Scan script choice")
struct ScanChoiceTests {
    /// The default full-size variant: 5 scans, script chosen per image.
    static let recipe = Defaults.variants.first { $0.name == "full" }!

    /// The image encoded for the default full-size variant, and the same coefficients with the
    /// fixed 5-scan script.
    static func chosenAndFixed(_ image: Image) throws -> (EncodedVariant, [UInt8]) {
        let encoded = try recipe.encoded(image, exif: nil)
        let fixed = try JPEGCoefficients(reading: encoded.bytes).written(scans: ScanScript.recommendedColor.scans)
        return (encoded, fixed)
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
        #expect(auto.progressive?.scanCount == 6)
        let fixed = try parse(
            #"{"sources": ["photos"], "variants": {"full": {"progressive": {"script": {"color": "0,1,2: 0-0,0,0; 0: 1-9,0,0; 2: 1-63,0,0; 1: 1-63,0,0; 0: 10-63,0,0;"}}}}}"#
        )
        #expect(fixed.progressive?.automatic == nil)
    }

    @Test("a noisy photo and a smooth render get different scripts, each better than the fixed one")
    func choiceDependsOnTheImage() throws {
        let (noisy, noisyFixed) = try Self.chosenAndFixed(try ProgressiveSubjects.noisyPhoto())
        let (smooth, smoothFixed) = try Self.chosenAndFixed(try ProgressiveSubjects.smoothGradient())
        #expect(noisy.script != nil && smooth.script != nil)
        #expect(noisy.script != smooth.script, "both got \(noisy.script?.description ?? "nothing")")
        for (chosen, fixed) in [(noisy.bytes, noisyFixed), (smooth.bytes, smoothFixed)] {
            let chosenScore = ScanComparison.score(version: "chosen", bytes: chosen)
            let fixedScore = ScanComparison.score(version: "fixed", bytes: fixed)
            #expect(
                chosenScore.ssimOverDownload > fixedScore.ssimOverDownload,
                "chosen \(chosenScore.script) \(chosenScore.ssimOverDownload) vs fixed \(fixedScore.ssimOverDownload)")
        }
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
            // A tile (96x96 pixels) over the budget at most.
            #expect(
                state.width * state.height <= chooser.scoringPixels + 96 * 96,
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

    @Test("a first-picture budget no script can meet is met as closely as possible, with advice")
    func impossibleBudget() throws {
        let jpeg = try ProgressiveSubjects.flatArt(width: 320, height: 240)
            .jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
        let choice = try ScanScriptChooser(scans: 5, firstPictureBudget: 0.01, firstRoundTripBytes: 0).choose(jpeg)
        #expect(choice.script.scans[0].al == 1, "the smallest first scan: the DC without its lowest bit")
        #expect(choice.budgetAdvice?.contains("more scans") == true)
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

    @Test("on renders, quality over the download is close to libjpeg's 10-scan default, with SSIM and with PSNR")
    func targetsOnRenders() throws {
        var ssimRatios: [Double] = []
        var psnrRatios: [Double] = []
        var firstShares: [Double] = []
        for (name, image) in try ProgressiveSubjects.renders() {
            let encoded = try Self.recipe.encoded(image, exif: nil)
            let versions = try ScanComparison.compare(encoded.bytes)
            let asIs = versions[0]
            let reference = versions[1]
            #expect(reference.scans == 10, "\(name)")
            ssimRatios.append(asIs.ssimOverDownload / reference.ssimOverDownload)
            psnrRatios.append(asIs.psnrOverDownload / reference.psnrOverDownload)
            firstShares.append(asIs.firstPictureShare ?? 1)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        // Issue 13's targets that hold on these renders (docs/SCAN_SCRIPTS.md has the figures):
        // the medians with SSIM and PSNR, and the lowest with PSNR.
        #expect(median(ssimRatios) >= 0.95, "\(ssimRatios)")
        #expect(median(psnrRatios) >= 0.95, "\(psnrRatios)")
        #expect(psnrRatios.min()! >= 0.90, "\(psnrRatios)")
        // Not reached on renders, by any valid 5-scan script (RenderOracleTests): the lowest SSIM
        // ratio (0.876 against a target of 0.90; the best valid script's is 0.878), and a median
        // first picture within 12 % (0.227: the DC of a smooth render is about a fifth of its
        // file). What holds, so that it does not get worse: the lowest SSIM ratio stays above
        // 0.85 and the median first picture within the default 25 % budget.
        #expect(ssimRatios.min()! >= 0.85, "\(ssimRatios)")
        #expect(median(firstShares) <= 0.25, "\(firstShares)")
    }
}
