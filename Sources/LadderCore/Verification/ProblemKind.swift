/// Every kind of problem `ladder verify` reports, by the name its output and docs/VERIFY.md use.
/// A kind is added here, in the docs' table, and in the tests that produce each kind
/// (Tests/LadderCLITests/VerifyKindTests.swift), which fail for a kind none of them produces.
package enum ProblemKind: String, Sendable, CaseIterable, Codable, Comparable, CustomStringConvertible {
    // The manifest phase.
    case manifestMissing = "manifest-missing"
    case manifestInvalid = "manifest-invalid"
    case unsafePath = "unsafe-path"
    case index

    // The image phase: each variant file.
    case missing
    /// A file that exists but cannot be read: verify's verdict is incomplete (exit 74).
    case unreadable
    case size
    case checksum
    case undecodable
    case damaged
    case dimensions
    case tooLarge = "too-large"
    case overLimits = "over-limits"
    case missingVariant = "missing-variant"
    case unknownVariant = "unknown-variant"
    case staleRecipe = "stale-recipe"
    case recipeSize = "recipe-size"
    case notProgressive = "not-progressive"
    case scanCount = "scan-count"
    case scanScript = "scan-script"
    case notBaseline = "not-baseline"
    case arithmeticCoding = "arithmetic-coding"
    case scanEnds = "scan-ends"
    case gps
    case orientation
    case metadata

    // The image phase: each variant's format siblings (a sibling file that is missing, unreadable,
    // over the limits or its box, or differs from its recorded bytes and SHA-256 is reported with
    // the kinds above, as any file).
    /// A sibling in a format the variant's recipe does not ask for.
    case unknownFormat = "unknown-format"
    /// A sibling that is not the format it claims, or that its decoder refuses.
    case siblingUndecodable = "sibling-undecodable"
    /// A sibling whose picture is not its JPEG rung's size.
    case siblingDimensions = "sibling-dimensions"
    /// A JPEG XL sibling that does not rebuild its JPEG rung byte for byte.
    case jxlReconstruction = "jxl-reconstruction"

    // The image phase: the placeholder, its colour and transparency.
    case placeholderMissing = "placeholder-missing"
    case placeholderInvalid = "placeholder-invalid"
    case placeholderColor = "placeholder-color"
    case hasAlpha = "has-alpha"

    // The source phase.
    case stale
    /// A source that exists but cannot be read (exit 74).
    case sourceUnreadable = "source-unreadable"

    // The orphan phase.
    case orphan

    // The replay phase: what a replay of the full-size variant found.
    case replayArithmeticCoding = "replay-arithmetic-coding"
    case replayTruncated = "replay-truncated"
    case replayUndecodable = "replay-undecodable"
    case replayCorruptData = "replay-corrupt-data"
    case replayScanCount = "replay-scan-count"
    case replayFirstPaint = "replay-first-paint"
    case replayQuality = "replay-quality"

    // The budget phase.
    case budget

    /// The kind verify reports for a replay finding. A file with more scans or pixels than the
    /// limits, or whose segments cannot be walked, is never replayed by verify (the image phase
    /// reports it and leaves it undecoded), so those findings cannot arise here; were they to,
    /// they would be the replay failing to decode the file.
    package init(replay finding: ReplayReport.Problem.Kind) {
        switch finding {
        case .arithmeticCoding: self = .replayArithmeticCoding
        case .truncated: self = .replayTruncated
        case .undecodable, .malformed, .tooManyScans, .tooManyPixels: self = .replayUndecodable
        case .corruptData: self = .replayCorruptData
        case .scanCount: self = .replayScanCount
        case .firstPaint: self = .replayFirstPaint
        case .quality: self = .replayQuality
        }
    }

    /// True for the kinds that mean a file exists but could not be read, so that the verdict is
    /// incomplete: verify exits 74 then, rather than 1.
    package var isReadFailure: Bool { self == .unreadable || self == .sourceUnreadable }

    package var description: String { rawValue }

    /// By name, as the output sorts problems.
    package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
