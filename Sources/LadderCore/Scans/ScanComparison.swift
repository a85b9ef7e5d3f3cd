public import LadderImaging

/// How one version of an image's coefficients loads: its quality over the download (see
/// `DownloadQuality`), with SSIM and with PSNR capped at 60 dB, and its first picture.
public struct ScanVersionScore: Sendable, Equatable, Codable {
    /// "as-is", "libjpeg-10-scan", "fixed-5-scan", or a candidate's script.
    public var version: String
    public var script: String
    public var scans: Int
    public var bytes: Int
    /// Mean SSIM over the file's bytes, 0 before the first picture.
    public var ssimOverDownload: Double
    /// Mean of PSNR (capped at 60 dB, divided by 60) over the file's bytes, 0 before the first picture.
    public var psnrOverDownload: Double
    /// The share of the file after which the first picture can show.
    public var firstPictureShare: Double?
    /// The chooser's estimate of `ssimOverDownload`, for candidates.
    public var estimate: Double?
}

/// Replays versions of the same coefficients written with different scan scripts.
public enum ScanComparison {
    /// The measure of a replay: quality over the download with SSIM, and with capped PSNR.
    /// The one place where a replay becomes the number scripts are judged by.
    public static func score(_ report: ReplayReport) -> (ssim: Double, psnr: Double) {
        guard !report.scans.isEmpty else { return (0, 0) }
        // A scan shows from the byte where it can be shown; the final picture is the reference.
        let showableAt = report.scans.map(\.endOffset)
        let last = report.scans.count - 1
        // Nothing shows before every component has its DC: such scans count 0.
        let ssim = report.scans.enumerated().map { $0.offset == last ? 1 : $0.element.displayable ? $0.element.ssim : 0 }
        let psnr = report.scans.enumerated().map {
            $0.offset == last ? 1 : $0.element.displayable ? DownloadQuality.psnrQuality($0.element.psnr) : 0
        }
        return (
            DownloadQuality.mean(qualities: ssim, showableAt: showableAt, total: report.bytes),
            DownloadQuality.mean(qualities: psnr, showableAt: showableAt, total: report.bytes)
        )
    }

    /// Replays `bytes` and scores it.
    public static func score(version: String, bytes: [UInt8], estimate: Double? = nil) -> ScanVersionScore {
        let report = ProgressiveReplay(options: .init(chunkBytes: 1 << 30)).replay(bytes, path: version)
        let (ssim, psnr) = score(report)
        let script =
            (try? JPEGStructure(parsing: bytes)).map { structure in
                ScanScript(structure.scans.map(\.script)).description
            } ?? ""
        return ScanVersionScore(
            version: version, script: script, scans: report.scans.count, bytes: bytes.count,
            ssimOverDownload: rounded(ssim), psnrOverDownload: rounded(psnr),
            firstPictureShare: report.firstPaintShare.map(rounded), estimate: estimate.map(rounded))
    }

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

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}
