import Foundation
import LadderCore

/// `ladder replay --json`: `{"files": [ <replay object> ... ]}`.
struct ReplayOutput: Encodable {
    var files: [ReplayJSON]
}

/// A replay object: `{"path", "bytes", "scans": [{"scan", "endOffset", "psnr", "ssim"}], ...}`.
struct ReplayJSON: Encodable {
    var path: String
    var bytes: Int
    var width: Int
    var height: Int
    var progressive: Bool
    var scans: [ReplayReport.Scan]
    var firstPaintOffset: Int?
    var firstPaintShare: Double?
    var firstShownAt: Int?
    /// Mean SSIM over the file's bytes, 0 before the first picture (see DownloadQuality).
    var qualityOverDownload: Double
    /// The same mean with PSNR in dB, capped at 60.
    var qualityOverDownloadPSNR: Double
    var matchesOneShotDecode: Bool
    var problems: [ReplayReport.Problem]
    /// The screen's measure (`ScreenQuality`): the view's width, the rung on screen first and
    /// its measure, where the file's picture replaces it, and the mean on screen.
    var displayWidth: Int?
    var firstRung: String?
    var firstRungScreen: Double?
    var fullShownAt: Int?
    var fullShownShare: Double?
    var screenOverDownload: Double?

    init(_ report: ReplayReport) {
        path = report.path
        bytes = report.bytes
        width = report.width
        height = report.height
        progressive = report.progressive
        scans = report.scans
        firstPaintOffset = report.firstPaintOffset
        firstPaintShare = report.firstPaintShare.map { ($0 * 10_000).rounded() / 10_000 }
        firstShownAt = report.firstShownAt
        let quality = DownloadQuality(report)
        qualityOverDownload = (quality.meanSSIM * 10_000).rounded() / 10_000
        qualityOverDownloadPSNR = (quality.meanPSNR() * 100).rounded() / 100
        matchesOneShotDecode = report.matchesOneShotDecode
        problems = report.problems
        displayWidth = report.displayWidth
        firstRung = report.firstRung
        firstRungScreen = report.firstRungScreen
        fullShownAt = report.fullShownAt
        fullShownShare = report.fullShownShare.map { ($0 * 10_000).rounded() / 10_000 }
        screenOverDownload = report.screenOverDownload
    }
}

/// Replays as text tables.
enum ReplayText {
    static func print(_ report: ReplayReport, console: Console, verbose: Bool) {
        let kind = report.progressive ? "progressive" : "baseline"
        console.print(
            "\(report.path): \(report.width)x\(report.height), \(report.bytes) bytes, \(kind), \(report.scans.count) scan\(report.scans.count == 1 ? "" : "s")"
        )
        if !report.scans.isEmpty {
            console.print("  scan   ends at     share   shown at     PSNR    SSIM  screen")
            for scan in report.scans {
                let share = report.bytes > 0 ? Double(scan.endOffset) / Double(report.bytes) * 100 : 0
                let shown = scan.shownAt.map { String($0) } ?? "-"
                console.print(
                    "  " + pad("\(scan.scan)", 4) + pad("\(scan.endOffset)", 11)
                        + pad(String(format: "%.1f %%", share), 9)
                        + pad(shown, 11) + pad(String(format: "%.2f", scan.psnr), 9)
                        + pad(String(format: "%.4f", scan.ssim), 8)
                        + pad(scan.screen.map { String(format: "%.4f", $0) } ?? "-", 8))
            }
        }
        if let share = report.firstPaintShare {
            var line = String(format: "  first picture after %.1f %% of the file", share * 100)
            if let shown = report.firstShownAt { line += " (shown at byte \(shown) with chunked delivery)" }
            console.print(line)
            let quality = DownloadQuality(report)
            console.print(
                String(
                    format: "  quality over the download: SSIM %.4f, PSNR %.2f dB", quality.meanSSIM,
                    quality.meanPSNR()))
        }
        if let line = screenLine(report) { console.print("  " + line) }
        for problem in report.problems {
            console.print(
                "  " + console.styledOutput("problem", .red) + " (\(problem.kind.rawValue)): \(problem.message)")
        }
    }

    /// Where the file's picture is on screen, and the mean on screen, in a view of its width.
    static func screenLine(_ report: ReplayReport) -> String? {
        guard let width = report.displayWidth, let mean = report.screenOverDownload else { return nil }
        var line = "on screen (\(width) px wide"
        if let rung = report.firstRung, let value = report.firstRungScreen {
            line += ", \(rung) first at " + String(format: "%.4f): ", value)
            line +=
                report.fullShownShare.map {
                    "better than \(rung) after " + String(format: "%.1f %% of the file", $0 * 100)
                }
                ?? "never better than \(rung)"
        } else {
            line += "): "
            line +=
                report.fullShownShare.map { String(format: "first picture after %.1f %% of the file", $0 * 100) }
                ?? "none"
        }
        return line + String(format: ", mean on screen over the download %.4f", mean)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : String(repeating: " ", count: width - text.count) + text
    }
}
