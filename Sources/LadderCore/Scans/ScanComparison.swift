package import LadderImaging

/// How one version of an image's coefficients loads: its quality over the download (see
/// `DownloadQuality`), with SSIM and with PSNR capped at 60 dB, and its first picture.
package struct ScanVersionScore: Sendable, Equatable, Codable {
    /// "as-is", "libjpeg-default" (10 scans for color), "fixed-5-scan", "candidate", or one of
    /// `bestValid`'s ("best-valid", "best-valid-early", "best-valid-psnr", "earliest-valid").
    package var version: String
    package var script: String
    package var scans: Int
    package var bytes: Int
    /// Mean SSIM over the file's bytes, 0 before the first picture.
    package var ssimOverDownload: Double
    /// Mean PSNR in dB (each picture's capped at 60 dB) over the file's bytes, 0 before the first picture.
    package var psnrOverDownload: Double
    /// The share of the file after which the first picture can show.
    package var firstPictureShare: Double?
    /// The chooser's estimate, for candidates: of `screenOverDownload` when the screen is
    /// measured, else of `ssimOverDownload`.
    package var estimate: Double?
    /// The mean `ScreenQuality` on screen over the download, with the first rung on screen
    /// until the file beats it (`ScreenTimeline`), when the screen is measured.
    package var screenOverDownload: Double?
    /// The share of the file after which its picture is on screen (beats the first rung).
    package var fullShownShare: Double?
}

/// The screen the versions are measured on: the view's width, and the file of the rung on
/// screen before them (nil for none).
package struct ComparisonScreen: Sendable {
    package var displayWidth: Int
    package var firstRung: [UInt8]?

    package init(displayWidth: Int = Defaults.displayWidth, firstRung: [UInt8]? = nil) {
        self.displayWidth = displayWidth
        self.firstRung = firstRung
    }
}

/// Replays versions of the same coefficients written with different scan scripts.
package enum ScanComparison {
    /// Measures `bytes` with `DownloadQuality` (the luma-only scan-by-scan replay) and scores it.
    /// With a `screen`, also replays it as the screen shows it.
    package static func score(
        version: String, bytes: [UInt8], estimate: Double? = nil, screen: ComparisonScreen? = nil
    ) -> ScanVersionScore {
        let measured = try? DownloadQuality(measuring: bytes)
        let structure = try? JPEGStructure(parsing: bytes)
        let shown = screen.map { screen in
            ProgressiveReplay(options: .init(chunkBytes: Int.max, displayWidth: screen.displayWidth))
                .replayKeepingFinal(
                    bytes, path: version, firstRung: screen.firstRung.map { (name: "first rung", bytes: $0) }
                ) { _ in [] }.report
        }
        return ScanVersionScore(
            version: version, script: structure.map { ScanScript($0.scans.map(\.script)).description } ?? "",
            scans: structure?.scans.count ?? 0, bytes: bytes.count,
            ssimOverDownload: rounded(measured?.meanSSIM ?? 0),
            psnrOverDownload: ((measured.map { $0.meanPSNR(cap: psnrCap) } ?? 0) * 100).rounded() / 100,
            firstPictureShare: measured?.firstPaintShare.map(rounded), estimate: estimate.map(rounded),
            screenOverDownload: shown?.screenOverDownload, fullShownShare: shown?.fullShownShare.map(rounded))
    }

    /// PSNR counts up to this many dB, so that the final picture is not infinitely good.
    package static let psnrCap = 60.0

    /// The file as it is, re-scanned with libjpeg's default progression (the reference), and
    /// re-scanned with the fixed script of `scans` scans (the recommended one for 5).
    package static func compare(
        _ bytes: [UInt8], scans: Int = 5, screen: ComparisonScreen? = nil
    ) throws(ImagingError) -> [ScanVersionScore] {
        let coefficients = try JPEGCoefficients(reading: bytes)
        let fixed = ProgressiveScripts.automatic(scans: scans)?.fixed(components: coefficients.components)
        var versions = [
            score(version: "as-is", bytes: bytes, screen: screen),
            score(version: "libjpeg-default", bytes: try coefficients.writtenWithDefaultProgression(), screen: screen),
        ]
        if let fixed {
            versions.append(
                score(
                    version: "fixed-\(scans)-scan", bytes: try coefficients.written(scans: fixed.scans), screen: screen)
            )
        }
        return versions
    }

    /// Every candidate `"script": "auto"` considers for the image in `bytes`, with the chooser's
    /// estimate next to the full replay's measure (to check that the estimate ranks them alike).
    package static func candidates(
        _ bytes: [UInt8], scans: Int = 5, firstPictureBudget: Double = ReplaySettings().firstPaintBudget,
        screen: ComparisonScreen = ComparisonScreen(), scoringPixels: Int = ScanScriptChooser.defaultScoringPixels
    ) throws(ImagingError) -> [ScanVersionScore] {
        let chooser = ScanScriptChooser(
            scans: scans, firstPictureBudget: firstPictureBudget, scoringPixels: scoringPixels,
            displayWidth: screen.displayWidth)
        let (coefficients, estimates) = try chooser.estimates(for: bytes, firstRung: screen.firstRung)
        var scores: [ScanVersionScore] = []
        for estimate in estimates {
            let written = try coefficients.written(scans: estimate.script.scans)
            scores.append(score(version: "candidate", bytes: written, estimate: estimate.quality, screen: screen))
        }
        return scores
    }

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}
