package import LadderCore
package import LadderImaging

extension ScanComparison {
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
    /// capped PSNR in dB, of luma at the file's size with nothing on screen before: the
    /// replay's luma measures, not the screen's).
    package static func bestValid(
        _ bytes: [UInt8], earlyShare: Double = 0.12
    ) throws(ImagingError) -> [ScanVersionScore] {
        guard (try? JPEGStructure(parsing: bytes))?.components.count == 3 else { return [] }
        let scripts = ValidScanScripts.color()
        // The luma measures of the replay, at the file's own size, with nothing on screen before.
        let bySSIM = ScanScriptChooser(
            scans: 5, firstPictureBudget: 1, scoringPixels: Int.max, displayWidth: Int.max,
            pictureQuality: { pictures, reference, width, height in
                ImageQuality.ssim(pictures.map { $0[0] }, reference: reference[0], width: width, height: height)
            })
        let byPSNR = ScanScriptChooser(
            scans: 5, firstPictureBudget: 1, scoringPixels: Int.max, displayWidth: Int.max,
            pictureQuality: { pictures, reference, _, _ in
                pictures.map { min(psnrCap, ImageQuality.psnr($0[0], reference: reference[0])) }
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
}
