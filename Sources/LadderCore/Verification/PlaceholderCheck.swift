import LadderImaging
import LadderManifest

/// Checks an image's `placeholder`, `averageColor` and `hasAlpha` against its smallest variant:
/// both colours must be within a tolerance of the mean colour of that variant's decoded pixels.
/// A variant of at least 64x64 is decoded at 1/8 scale: every pixel the mean of an 8x8 block
/// (its DC), weighed by the block's share inside the picture, so the mean is the full picture's
/// within about a level, at a fraction of the cost of a full decode.
///
/// The tolerances, in 8-bit levels per sRGB channel: `averageColor` is the mean of a 100-pixel
/// rendering of the same picture, so only JPEG's loss and the resampling separate the two
/// (`averageColorTolerance`); the placeholder's average is further quantized by ThumbHash (6
/// bits for luminance, 6 bits over twice the range for each colour difference, up to about 6
/// levels on red), hence `placeholderTolerance`.
struct PlaceholderCheck {
    static let averageColorTolerance = 6
    static let placeholderTolerance = 12

    var entry: Manifest.ImageEntry
    /// The smallest variant: its label and its file's bytes, when it could be read.
    var thumbnail: (label: String, bytes: [UInt8])?
    /// The manifest's label, for problems with the manifest's own values.
    var manifestLabel: String
    var image: String

    func problems() -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        let source = entry.sources.sorted().first ?? image
        func problem(_ kind: String, _ message: String, path: String? = nil) {
            problems.append(
                VerificationProblem(path: path ?? manifestLabel, kind: kind, message: message, image: image))
        }
        let hash = entry.placeholder.flatMap { ThumbHash(base64: $0) }
        let color = entry.averageColor.flatMap { HexColor($0) }
        if entry.placeholder == nil || entry.averageColor == nil || entry.hasAlpha == nil {
            let missing = [
                ("placeholder", entry.placeholder == nil), ("averageColor", entry.averageColor == nil),
                ("hasAlpha", entry.hasAlpha == nil),
            ].filter(\.1).map(\.0)
            problem(
                "placeholder-missing",
                "image \(source) has no \(missing.joined(separator: ", ")); run ladder build to add them")
        }
        if let text = entry.placeholder, hash?.isComplete != true {
            problem("placeholder-invalid", "image \(source): the placeholder \"\(text)\" is not a ThumbHash")
        }
        if let text = entry.averageColor, color == nil {
            problem("placeholder-invalid", "image \(source): the averageColor \"\(text)\" is not #rrggbb")
        }
        guard let thumbnail, hash != nil || color != nil,
            let header = try? JPEGStructure(parsing: thumbnail.bytes)
        else { return problems }
        let scale = min(header.width, header.height) >= Self.smallestScaled ? 8 : 1
        guard let pixels = try? DecodedPixels(decodingJPEG: thumbnail.bytes, scaleDenominator: scale),
            let mean = Self.mean(of: pixels.displayable(), width: header.width, height: header.height, scale: scale)
        else { return problems }

        if let color, let difference = Self.difference(mean, [color.red, color.green, color.blue].map(Double.init)),
            difference > Double(Self.averageColorTolerance)
        {
            problem(
                "placeholder-color",
                "image \(source): averageColor \(color) is \(Int(difference.rounded())) levels from the mean colour of \(thumbnail.label) (\(Self.hex(mean))); at most \(Self.averageColorTolerance) allowed",
                path: thumbnail.label)
        }
        if let average = hash?.averageColor,
            let difference = Self.difference(mean, [average.red, average.green, average.blue].map { $0 * 255 }),
            difference > Double(Self.placeholderTolerance)
        {
            problem(
                "placeholder-color",
                "image \(source): the placeholder's average colour is \(Int(difference.rounded())) levels from the mean colour of \(thumbnail.label) (\(Self.hex(mean))); at most \(Self.placeholderTolerance) allowed",
                path: thumbnail.label)
        }
        return problems
    }

    /// Thumbnails at least this wide and high are decoded at 1/8 scale; smaller ones whole, as
    /// their partial edge blocks (padded by the encoder) would weigh too much.
    static let smallestScaled = 64

    /// The mean red, green and blue of displayable pixels (RGB or grayscale) decoded at
    /// 1/`scale` from a `width` x `height` picture, each weighed by the share of its
    /// `scale` x `scale` block inside the picture; nil for other colour models.
    static func mean(of pixels: DecodedPixels, width: Int, height: Int, scale: Int) -> [Double]? {
        guard pixels.width > 0, pixels.height > 0 else { return nil }
        let channels: [Int]
        switch pixels.colorModel {
        case .grayscale: channels = [0, 0, 0]
        case .rgb: channels = [0, 1, 2]
        case .yCbCr, .cmyk: return nil
        }
        let stride = pixels.components
        var sums = [0, 0, 0]
        var total = 0
        for y in 0..<pixels.height {
            let rows = min(scale, height - y * scale)
            for x in 0..<pixels.width {
                let weight = rows * min(scale, width - x * scale)
                guard weight > 0 else { continue }
                let offset = (y * pixels.width + x) * stride
                for channel in 0..<3 { sums[channel] += weight * Int(pixels.samples[offset + channels[channel]]) }
                total += weight
            }
        }
        guard total > 0 else { return nil }
        return sums.map { Double($0) / Double(total) }
    }

    /// The largest difference between two colours' channels.
    static func difference(_ a: [Double], _ b: [Double]) -> Double? {
        zip(a, b).map { abs($0 - $1) }.max()
    }

    static func hex(_ color: [Double]) -> String {
        let bytes = color.map { UInt8(min(255, max(0, $0.rounded()))) }
        return HexColor(red: bytes[0], green: bytes[1], blue: bytes[2]).description
    }
}
