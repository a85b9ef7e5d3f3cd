/// One thing `ladder verify` found wrong.
public struct VerificationProblem: Sendable, Equatable, Codable {
    /// The file (or manifest location) concerned.
    public var path: String
    /// A short identifier of the kind of problem, for example "missing", "checksum",
    /// "scan-count", "gps", "stale", "orphan", "budget".
    public var kind: String
    public var message: String
    /// The SHA1 of the image concerned, when there is one.
    public var image: String?

    public init(path: String, kind: String, message: String, image: String? = nil) {
        self.path = path
        self.kind = kind
        self.message = message
        self.image = image
    }
}

/// The replay of one image's progressive variant, with its ladder timelines.
public struct ImageReplay: Sendable, Equatable {
    public var image: String
    /// The image's first source path.
    public var source: String?
    public var variant: String
    public var report: ReplayReport
    public var timelines: [LadderTimeline]
}

/// What `ladder verify` checked and found.
public struct VerificationReport: Sendable, Equatable {
    public var images: Int
    public var variants: Int
    /// Sources the manifest lists as failed (accounted for, so not problems).
    public var failures: Int = 0

    /// Every problem found, sorted by path.
    public var problems: [VerificationProblem]
    /// Replays of the progressive variants, when asked for.
    public var replays: [ImageReplay]
    /// Each image's first source path, by SHA1, for naming images in reports.
    public var sourceNames: [String: String]

    public var isOK: Bool { problems.isEmpty }

    /// The problem kinds that mean a file exists but could not be read (permissions, I/O).
    public static let readFailureKinds: Set<String> = [Verifier.unreadable, "source-unreadable"]

    /// True when some file could not be read, so that the verdict is incomplete: verify exits
    /// 74 then, rather than 1.
    public var hasReadFailures: Bool { problems.contains { Self.readFailureKinds.contains($0.kind) } }

    /// The median share of a full-size file after which its first picture shows.
    public var medianFirstPaintShare: Double? { median(replays.compactMap { $0.report.firstPaintShare }) }

    /// The median PSNR and SSIM of the first picture shown.
    public var medianFirstScanPSNR: Double? { median(replays.compactMap(Self.firstShownScan).map(\.psnr)) }
    public var medianFirstScanSSIM: Double? { median(replays.compactMap(Self.firstShownScan).map(\.ssim)) }

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
