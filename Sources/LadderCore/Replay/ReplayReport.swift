/// What replaying one JPEG's progressive load showed.
package struct ReplayReport: Sendable, Equatable, Codable {
    /// One scan: when it could be shown, when an app fed in chunks shows it, and how close it is
    /// to the final picture.
    package struct Scan: Sendable, Equatable, Codable {
        /// 1-based.
        package var scan: Int
        /// The byte count after which this scan can be shown.
        package var endOffset: Int
        /// False while some component still lacks its DC coefficients: browsers paint nothing
        /// then (a luma-only DC scan would show a grey picture).
        package var displayable: Bool
        /// The chunk boundary at which an app feeding the decoder chunk by chunk paints this
        /// scan, or nil when a later scan finished within the same chunk (so this one is never
        /// on screen by itself) or the file is refused before.
        package var shownAt: Int?
        /// PSNR of the luma plane against the final picture, in dB (99 = identical).
        package var psnr: Double
        /// SSIM of the luma plane against the final picture (1 = identical).
        package var ssim: Double
        /// `ScreenQuality` of the picture against the final one, in colour at the view's size;
        /// nil when not measured (a scan that cannot show, a file without a final picture).
        package var screen: Double? = nil
    }

    /// A finding that makes the replay fail.
    package struct Problem: Sendable, Equatable, Codable {
        /// What kind of finding it is; its raw value is what `--json` prints.
        package enum Kind: String, Sendable, CaseIterable, Codable {
            case tooManyScans = "too-many-scans"
            case tooManyPixels = "too-many-pixels"
            case malformed
            case arithmeticCoding = "arithmetic-coding"
            case truncated
            case undecodable
            case corruptData = "corrupt-data"
            case scanCount = "scan-count"
            /// The file's picture replaces what is on screen only after the budget.
            case firstPaint = "first-paint"
            case quality
        }

        package var kind: Kind
        package var message: String

        package init(kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }
    }

    package var path: String
    package var bytes: Int
    package var width: Int
    package var height: Int
    package var progressive: Bool
    package var scans: [Scan]
    /// The byte count after which the first picture can show.
    package var firstPaintOffset: Int?
    /// The chunk boundary at which an app fed in chunks shows its first picture.
    package var firstShownAt: Int?
    /// True when the last paint is the final picture, the one a one-shot decode of the whole file
    /// gives, pixel for pixel: the replay's render of its last scan, once libjpeg has read the
    /// whole file, is compared with a separate one-shot decode (libjpeg reading the file in one
    /// go). False for a file that is truncated or cannot be decoded whole.
    package var matchesOneShotDecode: Bool
    package var problems: [Problem]
    /// The width of the view the pictures were compared in (`ScreenQuality`), nil when they
    /// were not.
    package var displayWidth: Int? = nil
    /// The variant on screen before this file, and its `ScreenQuality` stretched to the view.
    package var firstRung: String? = nil
    package var firstRungScreen: Double? = nil
    /// True when the first rung is as large as this file's picture (an image no larger than
    /// the rung's box): the same picture, which no scan needs to beat within a budget.
    package var firstRungIsFullSize: Bool? = nil
    /// The byte count after which this file's picture is on screen: the first scan closer to
    /// the final picture than the first rung, or, without one, the first picture
    /// (`ScreenTimeline.fullShownOffset`).
    package var fullShownAt: Int? = nil
    /// The mean `ScreenQuality` on screen over the download (`ScreenTimeline.meanOnScreen`).
    package var screenOverDownload: Double? = nil

    /// `fullShownAt` as a share of the file.
    package var fullShownShare: Double? {
        fullShownAt.map { bytes > 0 ? Double($0) / Double(bytes) : 0 }
    }

    /// The first paint as a share of the file.
    package var firstPaintShare: Double? {
        firstPaintOffset.map { bytes > 0 ? Double($0) / Double(bytes) : 0 }
    }
}
