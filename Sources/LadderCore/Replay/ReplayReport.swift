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
    }

    /// A finding that makes the replay fail.
    package struct Problem: Sendable, Equatable, Codable {
        /// A short identifier: "too-many-scans", "truncated", "corrupt-data", "scan-count",
        /// "first-paint", "quality", "malformed", "arithmetic-coding", "undecodable".
        package var kind: String
        package var message: String

        package init(kind: String, message: String) {
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
    /// gives, pixel for pixel: the file is complete and libjpeg rendered every scan after reading
    /// all of it (its render of the last scan is then that picture; the tests check it against
    /// djpeg's).
    package var matchesOneShotDecode: Bool
    package var problems: [Problem]

    /// The first paint as a share of the file.
    package var firstPaintShare: Double? {
        firstPaintOffset.map { bytes > 0 ? Double($0) / Double(bytes) : 0 }
    }
}
