/// What replaying one JPEG's progressive load showed.
public struct ReplayReport: Sendable, Equatable, Codable {
    /// One scan: when it could be shown, when an app fed in chunks shows it, and how close it is
    /// to the final picture.
    public struct Scan: Sendable, Equatable, Codable {
        /// 1-based.
        public var scan: Int
        /// The byte count after which this scan can be shown.
        public var endOffset: Int
        /// False while some component still lacks its DC coefficients: browsers paint nothing
        /// then (a luma-only DC scan would show a grey picture).
        public var displayable: Bool
        /// The chunk boundary at which an app feeding the decoder chunk by chunk paints this
        /// scan, or nil when a later scan finished within the same chunk (so this one is never
        /// on screen by itself) or the file is refused before.
        public var shownAt: Int?
        /// PSNR of the luma plane against the final picture, in dB (99 = identical).
        public var psnr: Double
        /// SSIM of the luma plane against the final picture (1 = identical).
        public var ssim: Double
    }

    /// A finding that makes the replay fail.
    public struct Problem: Sendable, Equatable, Codable {
        /// A short identifier: "too-many-scans", "truncated", "corrupt-data", "scan-count",
        /// "first-paint", "quality", "malformed", "arithmetic-coding", "undecodable".
        public var kind: String
        public var message: String

        public init(kind: String, message: String) {
            self.kind = kind
            self.message = message
        }
    }

    public var path: String
    public var bytes: Int
    public var width: Int
    public var height: Int
    public var progressive: Bool
    public var scans: [Scan]
    /// The byte count after which the first picture can show.
    public var firstPaintOffset: Int?
    /// The chunk boundary at which an app fed in chunks shows its first picture.
    public var firstShownAt: Int?
    /// True when the last paint is the final picture, the one a one-shot decode of the whole file
    /// gives, pixel for pixel: the file is complete and libjpeg rendered every scan after reading
    /// all of it (its render of the last scan is then that picture; the tests check it against
    /// djpeg's).
    public var matchesOneShotDecode: Bool
    public var problems: [Problem]

    /// The first paint as a share of the file.
    public var firstPaintShare: Double? {
        firstPaintOffset.map { bytes > 0 ? Double($0) / Double(bytes) : 0 }
    }
}
