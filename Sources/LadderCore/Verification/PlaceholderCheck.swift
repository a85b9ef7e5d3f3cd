import Foundation
import LadderImaging
import LadderManifest

/// Checks an image's `placeholder` and `averageColor` against the variant they are made of:
/// its smallest variant file, decoded by libjpeg (`PlaceholderInput`), the file apps download.
///
/// Neither check has a tolerance of its own choosing (docs/VERIFY.md, "The placeholder"):
/// - `averageColor` is the rounded mean of that file's decoded pixels: verify decodes the same
///   bytes with the same decoder and must find exactly the same colour.
/// - The placeholder is a ThumbHash of that picture fitted inside 100 x 100, which verify makes
///   again the same way; the average colour its header gives is that picture's mean but for the
///   rounding of the header's DC terms (L to 1/63, P and Q to 1/31.5 of their range), which
///   moves red and green by at most 255 x (1/126 + 1/189 + 1/126) = 5.40 levels and blue by
///   255 x (1/126 + 2/189) = 4.72 (`placeholderTolerance`).
struct PlaceholderCheck {
    /// The most a ThumbHash header's average colour can differ from its picture's mean, in
    /// 8-bit levels of red, green and blue: the rounding of L (half of 1/63), P and Q (half of
    /// 2/63 each), carried through ThumbHash's LPQ-to-RGB equations, plus 10⁻⁶ for the
    /// floating point of the sums.
    static let placeholderTolerance: [Double] = [
        255 * (1.0 / 126 + 1.0 / 189 + 1.0 / 126) + 1e-6,
        255 * (1.0 / 126 + 1.0 / 189 + 1.0 / 126) + 1e-6,
        255 * (1.0 / 126 + 2.0 / 189) + 1e-6,
    ]

    var entry: Manifest.ImageEntry
    /// The variant the placeholder is made of: its label, its file's bytes and their SHA-256;
    /// nil when it cannot vouch for them (it could not be read, must not be decoded, or was
    /// made with another recipe: each reported on its own).
    var thumbnail: (label: String, bytes: [UInt8], sha256: String)?
    /// Checks that held on earlier runs, which are not decoded again; nil to decode every time.
    var verdicts: PlaceholderVerdicts?
    /// The manifest's label, for problems with the manifest's own values.
    var manifestLabel: String
    var image: String

    func problems() -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        let source = entry.sources.sorted().first ?? image
        func problem(_ kind: ProblemKind, _ message: String, path: String? = nil) {
            problems.append(
                VerificationProblem(path: path ?? manifestLabel, kind: kind, message: message, image: image))
        }
        let hash = entry.placeholder.flatMap { ThumbHash(base64: $0) }
        let color = entry.averageColor.flatMap { RGBColor($0) }
        if entry.placeholder == nil || entry.averageColor == nil || entry.hasAlpha == nil {
            let missing = [
                ("placeholder", entry.placeholder == nil), ("averageColor", entry.averageColor == nil),
                ("hasAlpha", entry.hasAlpha == nil),
            ].filter(\.1).map(\.0)
            problem(
                .placeholderMissing,
                "image \(source) has no \(missing.joined(separator: ", ")); run ladder build to add them")
        }
        if let text = entry.placeholder, hash?.isComplete != true {
            problem(.placeholderInvalid, "image \(source): the placeholder \"\(text)\" is not a ThumbHash")
        }
        if let text = entry.averageColor, color == nil {
            problem(.placeholderInvalid, "image \(source): the averageColor \"\(text)\" is not #rrggbb")
        }
        guard let thumbnail, hash != nil || color != nil else { return problems }
        let key = verdicts?.key(
            sha256: thumbnail.sha256, placeholder: entry.placeholder, averageColor: entry.averageColor)
        if let key, verdicts?.held(key) == true { return problems }
        let found = problems.count
        defer {
            if let key, problems.count == found { verdicts?.keep(key) }
        }
        let picture: PlaceholderInput
        do {
            picture = try PlaceholderInput(decoding: thumbnail.bytes)
        } catch {
            problem(
                .undecodable,
                "the placeholder and averageColor of image \(source) are made of this file, which does not decode: \(error.reason)",
                path: thumbnail.label)
            return problems
        }
        if let color, picture.averageColor != color {
            problem(
                .placeholderColor,
                "image \(source): averageColor \(color), but the mean colour of \(thumbnail.label) is \(picture.averageColor)",
                path: thumbnail.label)
        }
        if let average = hash?.averageColor {
            let small: ThumbHash.Picture
            do {
                small = try picture.thumbHashPicture()
            } catch {
                problem(
                    .undecodable, "cannot make the picture the placeholder of \(source) is made of: \(error.reason)",
                    path: thumbnail.label)
                return problems
            }
            let mean = PlaceholderInput.mean(of: small)
            let decoded = [average.red, average.green, average.blue].map { $0 * 255 }
            let names = ["red", "green", "blue"]
            let over = (0..<3).filter { abs(decoded[$0] - mean[$0]) > Self.placeholderTolerance[$0] }
            if let channel = over.first {
                let distance = abs(decoded[channel] - mean[channel])
                // The distance rounded up and the limit down, so that the one printed is always
                // above the other, as it is.
                problem(
                    .placeholderColor,
                    "image \(source): the placeholder's average colour \(Self.hex(decoded)) is \(Self.decimals(distance, .up)) levels of \(names[channel]) from the mean colour of the picture it is made of (\(Self.hex(mean)), \(thumbnail.label) fitted inside 100x100); ThumbHash's rounding allows at most \(Self.decimals(Self.placeholderTolerance[channel], .down))",
                    path: thumbnail.label)
            }
        }
        return problems
    }

    /// `value` with two decimals, rounded in `direction`.
    static func decimals(_ value: Double, _ direction: FloatingPointRoundingRule) -> String {
        String(format: "%.2f", (value * 100).rounded(direction) / 100)
    }

    static func hex(_ color: [Double]) -> String {
        let bytes = color.map { UInt8(min(255, max(0, $0.rounded()))) }
        return RGBColor(red: bytes[0], green: bytes[1], blue: bytes[2]).description
    }
}
