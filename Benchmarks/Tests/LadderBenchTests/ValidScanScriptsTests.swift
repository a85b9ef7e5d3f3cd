import Foundation
import LadderCore
import LadderImaging
import LadderResearch
import Testing

@Suite("Every valid 5-scan script")
struct ValidScanScriptsTests {
    @Test("every script has 5 scans, is complete, starts with every component's DC, and the candidates are among them")
    func theSpace() throws {
        let scripts = ValidScanScripts.color()
        // 69 two-scan luma plans x 12 orders, 24 orders with the DC refined, 2 x 9 chroma plans x 12 orders.
        #expect(scripts.count == 69 * 12 + 24 + 2 * 9 * 12)
        #expect(Set(scripts).count == scripts.count)
        for script in scripts {
            #expect(script.scans.count == 5)
            try script.validate(componentCount: 3)
            #expect(script.scans[0].components == [0, 1, 2] && script.scans[0].ss == 0 && script.scans[0].se == 0)
        }
        let candidates = ScanScriptCandidates.all(scans: 5, components: 3)
        #expect(!candidates.isEmpty)
        for candidate in candidates { #expect(scripts.contains(candidate), "\(candidate)") }
    }

    @Test("measured on the whole image, the chooser's score of a script is its full replay's")
    func wholeImageScoreIsTheReplay() throws {
        let jpeg = try ProgressiveSubjects.textOnColor(width: 320, height: 240)
            .jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
        let chooser = ScanScriptChooser(
            scans: 5, firstPictureBudget: 1, scoringPixels: Int.max, displayWidth: Int.max,
            pictureQuality: { pictures, reference, width, height in
                ImageQuality.ssim(pictures.map { $0[0] }, reference: reference[0], width: width, height: height)
            })
        // A spread of the space: every 37th script, so every family is in.
        let scripts = ValidScanScripts.color().enumerated().filter { $0.offset % 37 == 0 }.map(\.element)
        let (coefficients, estimates) = try chooser.estimates(for: jpeg, scripts: scripts)
        #expect(estimates.count == scripts.count)
        for estimate in estimates {
            let replayed = try DownloadQuality(measuring: try coefficients.written(scans: estimate.script.scans))
            #expect(estimate.showableAt == replayed.paints.map(\.offset), "\(estimate.script)")
            #expect(estimate.qualities == replayed.paints.map(\.ssim), "\(estimate.script)")
            let timeline = ScreenTimeline(
                bytes: replayed.bytes,
                paints: replayed.paints.map { ScreenTimeline.Paint(offset: $0.offset, quality: $0.ssim) },
                firstRung: nil)
            #expect(abs(estimate.quality - timeline.meanOnScreen) < 1e-9, "\(estimate.script)")
        }
    }
}

@Suite("The best valid 5-scan script on renders")
struct RenderOracleTests {
    /// Slow (every valid script of six renders, a few minutes): runs when LADDER_ORACLE is set,
    /// as docs/SCAN_SCRIPTS.md says.
    @Test(
        "no valid 5-scan script beats the chosen one by more than the estimate's error, and what the best reaches",
        .enabled(if: ProcessInfo.processInfo.environment["LADDER_ORACLE"] != nil))
    func oracleOnRenders() throws {
        for (name, image) in try ProgressiveSubjects.renders() {
            let encoded = try Defaults.variants.first { $0.name == "full" }!.encoded(image, exif: nil)
            let versions = try ScanComparison.compare(encoded.bytes) + ScanComparison.bestValid(encoded.bytes)
            let byName = Dictionary(uniqueKeysWithValues: versions.map { ($0.version, $0) })
            let reference = try #require(byName["libjpeg-default"])
            let chosen = try #require(byName["as-is"])
            let best = try #require(byName["best-valid"])
            let bestPSNR = try #require(byName["best-valid-psnr"])
            func ratio(_ score: ScanVersionScore) -> String {
                String(format: "%.3f", score.ssimOverDownload / reference.ssimOverDownload)
            }
            let early = byName["best-valid-early"].map(ratio) ?? "none"
            let earliest = try #require(byName["earliest-valid"])
            print(
                "oracle \(name): SSIM ratio chosen \(ratio(chosen)) (first \(chosen.firstPictureShare ?? 1)), best valid \(ratio(best)) (first \(best.firstPictureShare ?? 1)), best within 12 % \(early), earliest first picture \(earliest.firstPictureShare ?? 1) (ratio \(ratio(earliest))); PSNR ratio chosen \(String(format: "%.3f", chosen.psnrOverDownload / reference.psnrOverDownload)), best \(String(format: "%.3f", bestPSNR.psnrOverDownload / reference.psnrOverDownload)); best: \(best.script)"
            )
            // The candidates are valid scripts, and the oracle's scores are the replay's.
            #expect(best.ssimOverDownload >= chosen.ssimOverDownload - 0.0001, "\(name)")
            // No valid script shows a first picture before the earliest one.
            #expect((earliest.firstPictureShare ?? 1) <= (chosen.firstPictureShare ?? 1) + 0.0001, "\(name)")
        }
    }
}
