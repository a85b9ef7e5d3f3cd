import Foundation
import LadderCore

/// `ladder replay --compare --json`: `{"files": [{"path", "versions": [...], "error"}]}`.
struct ScanComparisonOutput: Encodable {
    var files: [ScanComparisonJSON]
}

/// One file's versions; `error` says why the file could not be re-scanned.
struct ScanComparisonJSON: Encodable {
    var path: String
    var versions: [ScanVersionScore]
    var error: String?
}

/// `ladder replay --compare` as text: one line per version.
enum ScanComparisonText {
    static func print(_ result: ScanComparisonJSON, console: Console) {
        console.print("\(result.path):")
        if let error = result.error {
            console.print("  " + console.styledOutput("problem", .red) + ": \(error)")
            return
        }
        let reference = result.versions.first { $0.version == "libjpeg-default" }
        console.print(
            "  version              scans     bytes   first   SSIM/dl  ratio   PSNR/dl  ratio  screen/dl  shown at  estimate"
        )
        for version in result.versions {
            let first = version.firstPictureShare.map { String(format: "%.1f %%", $0 * 100) } ?? "-"
            func ratio(_ value: Double, _ base: Double?) -> String {
                guard let base, base > 0 else { return "-" }
                return String(format: "%.3f", value / base)
            }
            console.print(
                "  " + version.version.padding(toLength: 19, withPad: " ", startingAt: 0)
                    + ReplayText.pad("\(version.scans)", 7) + ReplayText.pad("\(version.bytes)", 10)
                    + ReplayText.pad(first, 8) + ReplayText.pad(String(format: "%.4f", version.ssimOverDownload), 10)
                    + ReplayText.pad(ratio(version.ssimOverDownload, reference?.ssimOverDownload), 7)
                    + ReplayText.pad(String(format: "%.4f", version.psnrOverDownload), 10)
                    + ReplayText.pad(ratio(version.psnrOverDownload, reference?.psnrOverDownload), 7)
                    + ReplayText.pad(version.screenOverDownload.map { String(format: "%.4f", $0) } ?? "-", 11)
                    + ReplayText.pad(version.fullShownShare.map { String(format: "%.1f %%", $0 * 100) } ?? "-", 10)
                    + ReplayText.pad(version.estimate.map { String(format: "%.4f", $0) } ?? "", 10))
            if version.version == "candidate" || version.version == "as-is" {
                console.print("    \(version.script)")
            }
        }
    }
}
