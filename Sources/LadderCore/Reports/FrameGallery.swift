import Foundation
package import LadderImaging
import Synchronization

/// Writes every picture a replay renders as a JPEG (quality 92, no chroma subsampling: close
/// enough to the picture that the roughness of early scans shows as it is, and quick to write;
/// a baseline rung that needs no scaling is its own variant file, copied), and one HTML page
/// that shows, per image, the
/// filmstrip of paints with their byte offsets, times and quality, and the ladder timeline: what
/// a user sees while the image loads. The page opens from disk, with no server.
package final class FrameGallery: FrameCollecting, @unchecked Sendable {
    // @unchecked: the only mutable state is behind `frames`' mutex.

    /// The folder written to.
    package let directory: String
    /// Pictures larger than this on their long side are scaled down to it, to keep pages light
    /// (replays render their scans at most this large where an n/8 scale allows it).
    package let maximumSide: Int
    private let frames = Mutex<[String: [Frame]]>([:])

    struct Frame {
        var variant: String
        var scan: Int?
        var file: String
        var width: Int
        var height: Int
    }

    package init(directory: String, maximumSide: Int = 1200) throws(FileSystemError) {
        self.directory = directory
        self.maximumSide = maximumSide
        _ = try Directory.create(directory)
    }

    package func collect(image: String, variant: String, scan: Int?, pixels: DecodedPixels) {
        let folder = Self.folderName(image)
        let file = "\(folder)/\(variant)\(scan.map { "-scan-\($0)" } ?? "").jpg"
        do {
            // Every image made here is released inside: see `Imaging.reducingAlone`.
            let jpeg = try Imaging.reducingAlone { () throws(ImagingError) -> [UInt8] in
                var picture = try pixels.image()
                let longest = max(picture.width, picture.height)
                if longest > maximumSide {
                    let scale = Double(maximumSide) / Double(longest)
                    picture = try picture.resized(
                        to: PixelSize(
                            width: max(1, Int((Double(picture.width) * scale).rounded())),
                            height: max(1, Int((Double(picture.height) * scale).rounded()))))
                }
                return try picture.encoded(as: ".jpg[Q=92,subsample_mode=off,strip]")
            }
            try Directory.create(FilePath.join(directory, folder)).writeAtomically(jpeg, to: FilePath.name(file))
            let frame = Frame(variant: variant, scan: scan, file: file, width: pixels.width, height: pixels.height)
            frames.withLock { $0[image, default: []].append(frame) }
        } catch {
            // A picture that cannot be written leaves a gap in the page, never stops the check.
        }
    }

    package func collect(image: String, variant: String, file bytes: [UInt8], width: Int, height: Int) {
        guard bytes.starts(with: [0xFF, 0xD8, 0xFF]), max(width, height) <= maximumSide else {
            if let pixels = try? DecodedPixels(decodingJPEG: bytes) {
                collect(image: image, variant: variant, scan: nil, pixels: pixels)
            }
            return
        }
        // The variant itself is the picture an app shows: written once, as it is.
        let folder = Self.folderName(image)
        let file = "\(folder)/\(variant).jpg"
        do {
            try Directory.create(FilePath.join(directory, folder)).writeAtomically(bytes, to: FilePath.name(file))
            let frame = Frame(variant: variant, scan: nil, file: file, width: width, height: height)
            frames.withLock { $0[image, default: []].append(frame) }
        } catch {
            // A picture that cannot be written leaves a gap in the page, never stops the check.
        }
    }

    /// The folder for one image's pictures.
    static func folderName(_ image: String) -> String {
        let safe = image.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" }
        return String(String(safe).prefix(60))
    }

    /// Writes `index.html` for the replays, and returns its path.
    @discardableResult
    package func writeIndex(replays: [ImageReplay], title: String, chunkBytes: Int) throws(FileSystemError) -> String {
        let collected = frames.withLock { $0 }
        var html = HTMLPage.head(
            title: title,
            style: """
                h1 { font-size: 20px; } h2 { font-size: 16px; margin: 28px 0 8px; word-break: break-all; }
                .strip { display: flex; gap: 12px; overflow-x: auto; padding-bottom: 8px; }
                figure { margin: 0; flex: 0 0 auto; background: #fff; border: 1px solid #ddd; padding: 6px; }
                figure img { display: block; height: 180px; width: auto; image-rendering: auto; }
                figcaption { font-size: 12px; color: #555; margin-top: 4px; }
                table { border-collapse: collapse; margin-top: 8px; font-size: 12px; }
                td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
                th { background: #f0f0f0; } td.name { text-align: left; }
                .hidden { color: #999; } .problem { color: #b00020; }
                """)
        html += """
            <h1>\(escape(title))</h1>
            <p>Each picture is what the app can show at that moment, fed \(chunkBytes / 1024) KiB at a time. Quality compares
            with the final full-size picture (PSNR in dB and SSIM on luma; 99 dB and 1 mean identical), and "on screen" as a
            phone's view shows it, in colour (the mean SSIM of Y, Cb and Cr).</p>

            """
        for replay in replays {
            let report = replay.report
            let name = replay.source ?? replay.image
            html += "<section id=\"image-\(escape(replay.image))\"><h2>\(escape(name))</h2>\n"

            html +=
                "<p>\(escape(replay.variant)): \(report.width)x\(report.height), \(report.bytes) bytes, \(report.scans.count) scans"
            if let share = report.firstPaintShare {
                html += String(format: ", first picture after %.1f %% of the file", share * 100)
            }
            if let rung = report.firstRung, let quality = report.firstRungScreen {
                html += "; with \(escape(rung)) on screen (" + String(format: "%.4f)", quality)
                html +=
                    report.fullShownShare.map { String(format: ", better than it after %.1f %% of the file", $0 * 100) }
                    ?? ", never better than it before the end"
            }
            if let mean = report.screenOverDownload, let width = report.displayWidth {
                html += String(format: "; on screen %d px wide, %.4f over the download", width, mean)
            }
            html += "</p>\n<div class=\"strip\">\n"
            let pictures = collected[replay.image] ?? []
            for frame in pictures where frame.scan == nil {
                html += figure(frame.file, caption: "\(escape(frame.variant)) (\(frame.width)x\(frame.height))")
            }
            for scan in report.scans {
                guard let frame = pictures.first(where: { $0.variant == replay.variant && $0.scan == scan.scan }) else {
                    continue
                }
                let share = report.bytes > 0 ? Double(scan.endOffset) / Double(report.bytes) * 100 : 0
                var caption = String(
                    format: "scan %d · byte %d (%.1f %%)<br>%.2f dB · SSIM %.4f", scan.scan, scan.endOffset, share,
                    scan.psnr, scan.ssim)
                if let screen = scan.screen { caption += String(format: " · on screen %.4f", screen) }
                if scan.shownAt == nil { caption += "<br><span class=\"hidden\">not shown alone</span>" }
                html += figure(frame.file, caption: caption)
            }
            html += "</div>\n"
            for problem in report.problems {
                html += "<p class=\"problem\">\(escape(problem.kind.rawValue)): \(escape(problem.message))</p>\n"
            }
            for timeline in replay.timelines {
                html += "<table><tr><th colspan=\"4\">\(escape(timeline.profile.summary))</th></tr>"
                html += "<tr><th>time</th><th>picture</th><th>SSIM</th><th>on screen</th></tr>\n"
                for event in timeline.events {
                    let picture = event.variant + (event.scan.map { " scan \($0)" } ?? "")
                    let ssim = event.ssim.map { String(format: "%.4f", $0) } ?? "–"
                    html +=
                        "<tr\(event.shown ? "" : " class=\"hidden\"")><td>\(String(format: "%.2f s", event.seconds))</td>"
                    html +=
                        "<td class=\"name\">\(escape(picture))</td><td>\(ssim)</td><td>\(event.shown ? "yes" : "no, a better picture is shown")</td></tr>\n"
                }
                html += "</table>\n"
            }
            html += "</section>\n"
        }
        html += "</body></html>\n"
        let folder = try Directory.create(directory)
        try folder.writeAtomically(Array(html.utf8), to: "index.html")
        return FilePath.join(directory, "index.html")
    }

    private func figure(_ file: String, caption: String) -> String {
        "<figure><a href=\"\(escape(file))\"><img src=\"\(escape(file))\" alt=\"\"></a><figcaption>\(caption)</figcaption></figure>\n"
    }
}
