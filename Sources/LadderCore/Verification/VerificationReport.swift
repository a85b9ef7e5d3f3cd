/// One thing `ladder verify` found wrong.
package struct VerificationProblem: Sendable, Equatable, Codable {
    /// The file (or manifest location) concerned.
    package var path: String
    /// What kind of problem it is ("missing", "checksum", "scan-count"...).
    package var kind: ProblemKind
    package var message: String
    /// The SHA1 of the image concerned, when there is one.
    package var image: String?

    package init(path: String, kind: ProblemKind, message: String, image: String? = nil) {
        self.path = path
        self.kind = kind
        self.message = message
        self.image = image
    }
}

/// The replay of one image's progressive variant, with its ladder timelines.
package struct ImageReplay: Sendable, Equatable {
    package var image: String
    /// The image's first source path.
    package var source: String?
    package var variant: String
    package var report: ReplayReport
    package var timelines: [LadderTimeline]
}

/// What `ladder verify` checked and found.
package struct VerificationReport: Sendable, Equatable {
    package var images: Int
    package var variants: Int
    /// Sources the manifest lists as failed (accounted for, so not problems).
    package var failures: Int = 0

    /// Every problem found, sorted by path.
    package var problems: [VerificationProblem]
    /// Replays of the progressive variants, when asked for.
    package var replays: [ImageReplay]
    /// Each image's first source path, by SHA1, for naming images in reports (empty unless
    /// `Verifier.Options.namesImages`).
    package var sourceNames: [String: String]

    package var isOK: Bool { problems.isEmpty }

    /// True when some file could not be read, so that the verdict is incomplete: verify exits
    /// 74 then, rather than 1.
    package var hasReadFailures: Bool { problems.contains { $0.kind.isReadFailure } }

    /// The median share of a full-size file after which its first picture shows.
    package var medianFirstPaintShare: Double? { median(replays.compactMap { $0.report.firstPaintShare }) }

    /// The median share of a full-size file after which its picture is on screen: better than
    /// the rung shown first (`ReplayReport.fullShownShare`).
    package var medianFullShownShare: Double? { median(replays.compactMap { $0.report.fullShownShare }) }

    /// The median PSNR and SSIM of the first picture shown.
    package var medianFirstScanPSNR: Double? { median(replays.compactMap(Self.firstShownScan).map(\.psnr)) }
    package var medianFirstScanSSIM: Double? { median(replays.compactMap(Self.firstShownScan).map(\.ssim)) }

    static func firstShownScan(_ replay: ImageReplay) -> ReplayReport.Scan? {
        replay.report.scans.first { $0.displayable }
    }
}

/// The median of `values`, nil when there are none.
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
