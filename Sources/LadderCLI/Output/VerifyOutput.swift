import Foundation
import LadderCore

/// `ladder verify --json`: `{"ok", "problems": [{"path", "kind", "message"}], "replay": [...]}`.
struct VerifyJSON: Encodable {
    struct Problem: Encodable {
        var path: String
        var kind: String
        var message: String
        var image: String?
    }

    struct Summary: Encodable {
        var medianFirstPaintShare: Double?
        /// The median share of the full-size file after which its picture is on screen.
        var medianFullShownShare: Double?
        var medianFirstScanPSNR: Double?
        var medianFirstScanSSIM: Double?
    }

    var ok: Bool
    var images: Int
    var variants: Int
    var failures: Int
    var problems: [Problem]
    var replay: [ImageReplayJSON]?
    var summary: Summary

    /// `replayed`: whether replays were asked for; the `replay` key is then always present,
    /// an empty array when there was nothing to replay.
    init(_ report: VerificationReport, replayed: Bool) {
        ok = report.isOK
        images = report.images
        variants = report.variants
        failures = report.failures

        problems = report.problems.map {
            Problem(path: $0.path, kind: $0.kind.rawValue, message: $0.message, image: $0.image)
        }
        replay = replayed || !report.replays.isEmpty ? report.replays.map(ImageReplayJSON.init) : nil
        summary = Summary(
            medianFirstPaintShare: report.medianFirstPaintShare.map { ($0 * 10_000).rounded() / 10_000 },
            medianFullShownShare: report.medianFullShownShare.map {
                ($0 * 10_000).rounded() / 10_000
            },
            medianFirstScanPSNR: report.medianFirstScanPSNR, medianFirstScanSSIM: report.medianFirstScanSSIM)
    }
}

/// A replay object of verify: the replay object of `ladder replay`, with the image it belongs to
/// and the ladder timelines.
struct ImageReplayJSON: Encodable {
    var image: String
    var source: String?
    var variant: String
    var replay: ReplayJSON
    var timelines: [TimelineJSON]

    init(_ replay: ImageReplay) {
        image = replay.image
        source = replay.source
        variant = replay.variant
        self.replay = ReplayJSON(replay.report)
        timelines = replay.timelines.map(TimelineJSON.init)
    }

    func encode(to encoder: any Encoder) throws {
        // Flattened: the replay object's own keys, plus image, source, variant and timelines.
        try replay.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(image, forKey: .image)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encode(variant, forKey: .variant)
        if !timelines.isEmpty { try container.encode(timelines, forKey: .timelines) }
    }

    enum Keys: String, CodingKey { case image, source, variant, timelines }
}

struct TimelineJSON: Encodable {
    var profile: String
    var downlinkKbps: Double
    var rttMs: Double
    var firstPictureSeconds: Double?
    var completeSeconds: Double?
    var events: [LadderTimeline.Event]

    init(_ timeline: LadderTimeline) {
        profile = timeline.profile.name
        downlinkKbps = timeline.profile.downlinkKilobitsPerSecond
        rttMs = timeline.profile.roundTripMilliseconds
        firstPictureSeconds = timeline.firstPictureSeconds
        completeSeconds = timeline.completeSeconds
        events = timeline.events
    }
}

/// `ladder verify` as text: a short table, then every problem.
enum VerifyText {
    static func print(_ report: VerificationReport, console: Console, verbose: Bool) {
        let status = report.isOK ? console.styledOutput("ok", .green) : console.styledOutput("FAILED", .red)
        console.print("ladder verify: \(status)")
        console.print("  images     \(report.images)")
        console.print("  variants   \(report.variants)")
        console.print("  problems   \(report.problems.count)")
        if report.failures > 0 {
            console.print(
                "  (\(report.failures) source\(report.failures == 1 ? "" : "s") could not be built; the manifest lists them with the reasons)"
            )
        }
        if let share = report.medianFirstPaintShare {
            console.print(String(format: "  first picture after %.1f %% of the full-size file (median)", share * 100))
        }
        if let psnr = report.medianFirstScanPSNR, let ssim = report.medianFirstScanSSIM {
            console.print(String(format: "  first scan quality %.2f dB PSNR, SSIM %.4f (median)", psnr, ssim))
        }
        if let share = report.medianFullShownShare {
            let rung = report.replays.lazy.compactMap { $0.report.firstRung }.first
            console.print(
                "  \(rung.map { "better than \($0)" } ?? "first picture")"
                    + String(format: " after %.1f %% of the full-size file (median)", share * 100))
        }
        for replay in report.replays.sorted(by: { ($0.source ?? $0.image) < ($1.source ?? $1.image) }) {
            for timeline in replay.timelines {
                var line = "  \(replay.source ?? replay.image) on \(timeline.profile.name): "
                if let first = timeline.events.first(where: { $0.shown }) {
                    line += String(format: "first picture %.2f s (%@)", first.seconds, first.variant)
                }
                if let complete = timeline.completeSeconds { line += String(format: ", complete %.2f s", complete) }
                console.print(line)
            }
            if verbose {
                ReplayText.print(replay.report, console: console, verbose: true)
            } else if let line = ReplayText.screenLine(replay.report) {
                console.print("  \(replay.source ?? replay.image): \(line)")
            }
        }
        for problem in report.problems {
            console.print("  \(problem.path): \(console.styledOutput(problem.kind.rawValue, .red)): \(problem.message)")
        }
    }
}
