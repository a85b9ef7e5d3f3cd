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
    /// The chooser's estimate of `ssimOverDownload`, for candidates.
    package var estimate: Double?
}

/// Replays versions of the same coefficients written with different scan scripts.
package enum ScanComparison {
    /// Measures `bytes` with `DownloadQuality` (the luma-only scan-by-scan replay) and scores it.
    package static func score(version: String, bytes: [UInt8], estimate: Double? = nil) -> ScanVersionScore {
        let measured = try? DownloadQuality(measuring: bytes)
        let structure = try? JPEGStructure(parsing: bytes)
        return ScanVersionScore(
            version: version, script: structure.map { ScanScript($0.scans.map(\.script)).description } ?? "",
            scans: structure?.scans.count ?? 0, bytes: bytes.count,
            ssimOverDownload: rounded(measured?.meanSSIM ?? 0),
            psnrOverDownload: ((measured.map { $0.meanPSNR(cap: psnrCap) } ?? 0) * 100).rounded() / 100,
            firstPictureShare: measured?.firstPaintShare.map(rounded), estimate: estimate.map(rounded))
    }

    /// PSNR counts up to this many dB, so that the final picture is not infinitely good.
    package static let psnrCap = 60.0

    /// The file as it is, re-scanned with libjpeg's default progression (the reference), and
    /// re-scanned with the fixed script of `scans` scans (the recommended one for 5).
    package static func compare(_ bytes: [UInt8], scans: Int = 5) throws(ImagingError) -> [ScanVersionScore] {
        let coefficients = try JPEGCoefficients(reading: bytes)
        let fixed = ProgressiveScripts.automatic(scans: scans)?.fixed(components: coefficients.components)
        var versions = [
            score(version: "as-is", bytes: bytes),
            score(version: "libjpeg-default", bytes: try coefficients.writtenWithDefaultProgression()),
        ]
        if let fixed {
            versions.append(score(version: "fixed-\(scans)-scan", bytes: try coefficients.written(scans: fixed.scans)))
        }
        return versions
    }

    /// Every candidate `"script": "auto"` considers for the image in `bytes`, with the chooser's
    /// estimate next to the full replay's measure (to check that the estimate ranks them alike).
    package static func candidates(
        _ bytes: [UInt8], scans: Int = 5, firstPictureBudget: Double = ReplaySettings().firstPaintBudget
    ) throws(ImagingError) -> [ScanVersionScore] {
        let chooser = ScanScriptChooser(scans: scans, firstPictureBudget: firstPictureBudget)
        let (coefficients, estimates) = try chooser.estimates(for: bytes)
        var scores: [ScanVersionScore] = []
        for estimate in estimates {
            let written = try coefficients.written(scans: estimate.script.scans)
            scores.append(score(version: "candidate", bytes: written, estimate: estimate.quality))
        }
        return scores
    }

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}
