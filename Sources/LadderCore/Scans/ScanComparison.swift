public import LadderImaging

/// How one version of an image's coefficients loads: its quality over the download (see
/// `DownloadQuality`), with SSIM and with PSNR capped at 60 dB, and its first picture.
public struct ScanVersionScore: Sendable, Equatable, Codable {
    /// "as-is", "libjpeg-default" (10 scans for color), "fixed-5-scan", "candidate", or one of
    /// `bestValid`'s ("best-valid", "best-valid-early", "best-valid-psnr", "earliest-valid").
    public var version: String
    public var script: String
    public var scans: Int
    public var bytes: Int
    /// Mean SSIM over the file's bytes, 0 before the first picture.
    public var ssimOverDownload: Double
    /// Mean PSNR in dB (each picture's capped at 60 dB) over the file's bytes, 0 before the first picture.
    public var psnrOverDownload: Double
    /// The share of the file after which the first picture can show.
    public var firstPictureShare: Double?
    /// The chooser's estimate of `ssimOverDownload`, for candidates.
    public var estimate: Double?
}

/// Replays versions of the same coefficients written with different scan scripts.
public enum ScanComparison {
    /// Measures `bytes` with `DownloadQuality` (the luma-only scan-by-scan replay) and scores it.
    public static func score(version: String, bytes: [UInt8], estimate: Double? = nil) -> ScanVersionScore {
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
    public static let psnrCap = 60.0

    /// The file as it is, re-scanned with libjpeg's default progression (the reference), and
    /// re-scanned with the fixed script of `scans` scans (the recommended one for 5).
    public static func compare(_ bytes: [UInt8], scans: Int = 5) throws(ImagingError) -> [ScanVersionScore] {
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
    public static func candidates(
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

    /// The best any valid 5-scan script (`ValidScanScripts`) can do with the coefficients in
    /// `bytes` (color images only; none for others): the script with the highest quality over
    /// the download with SSIM ("best-valid"), the same among those whose first picture shows
    /// within `earlyShare` of the file ("best-valid-early"), the highest with PSNR capped at
    /// `psnrCap` ("best-valid-psnr"), and the one whose first picture comes first
    /// ("earliest-valid", the best by SSIM among those tied; how small any valid first scan can
    /// be, which decides whether a first-picture budget can be met at all). Every script is
    /// scored on the whole image, with each distinct scan's length and each distinct luma
    /// picture measured once (exact, see `ScanScriptChooser`); each winner is then written and
    /// replayed in full, and its `estimate` is the score it was chosen by (mean SSIM, or mean
    /// capped PSNR in dB).
    public static func bestValid(_ bytes: [UInt8], earlyShare: Double = 0.12) throws(ImagingError) -> [ScanVersionScore]
    {
        guard (try? JPEGStructure(parsing: bytes))?.components.count == 3 else { return [] }
        let scripts = ValidScanScripts.color()
        let bySSIM = ScanScriptChooser(scans: 5, firstPictureBudget: 1, scoringPixels: Int.max)
        let byPSNR = ScanScriptChooser(
            scans: 5, firstPictureBudget: 1, scoringPixels: Int.max,
            pictureQuality: { pictures, reference, _, _ in
                pictures.map { min(psnrCap, ImageQuality.psnr($0, reference: reference)) }
            }, identicalQuality: psnrCap)
        let (coefficients, ssimEstimates) = try bySSIM.estimates(for: bytes, scripts: scripts)
        let (_, psnrEstimates) = try byPSNR.estimates(for: bytes, scripts: scripts)
        let winners: [(String, ScanScriptChooser.Estimate?)] = [
            ("best-valid", ssimEstimates.max { $0.quality < $1.quality }),
            (
                "best-valid-early",
                ssimEstimates.filter { $0.firstPictureShare <= earlyShare }.max { $0.quality < $1.quality }
            ),
            ("best-valid-psnr", psnrEstimates.max { $0.quality < $1.quality }),
            ("earliest-valid", ssimEstimates.min { ($0.showableAt[0], -$0.quality) < ($1.showableAt[0], -$1.quality) }),
        ]
        var versions: [ScanVersionScore] = []
        for case let (version, estimate?) in winners {
            let written = try coefficients.written(scans: estimate.script.scans)
            versions.append(score(version: version, bytes: written, estimate: estimate.quality))
        }
        return versions
    }

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}
