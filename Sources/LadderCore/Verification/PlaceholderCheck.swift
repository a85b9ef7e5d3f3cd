import LadderImaging
import LadderManifest

/// Checks an image's `placeholder`, `averageColor` and `hasAlpha` against its smallest variant:
/// both colours must be within a tolerance of the mean colour of that variant's decoded pixels.
/// The variant is decoded in full: a decode at 1/8 scale (its DC alone) was measured 4 levels
/// off the full decode's mean on saturated colours, most of `averageColorTolerance`.
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
        let color = entry.averageColor.flatMap { RGBColor($0) }
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
            let pixels = try? DecodedPixels(decodingJPEG: thumbnail.bytes, rgb: true),
            let mean = Self.mean(of: pixels.displayable())
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

    /// The mean red, green and blue of displayable pixels (RGB or grayscale); nil for others.
    static func mean(of pixels: DecodedPixels) -> [Double]? {
        let count = pixels.width * pixels.height
        guard count > 0 else { return nil }
        var sums = [0, 0, 0]
        switch pixels.colorModel {
        case .grayscale:
            let total = pixels.samples.reduce(0) { $0 + Int($1) }
            sums = [total, total, total]
        case .rgb:
            sums = rgbSums(pixels.samples, pixels: count)
        case .yCbCr, .cmyk:
            return nil
        }
        return sums.map { Double($0) / Double(count) }
    }

    /// The sums of the red, green and blue samples of the first `count` pixels of interleaved
    /// RGB `samples`. Sixteen pixels are three 16-byte vectors, in which byte `j` is channel
    /// `j % 3`; each vector's lanes are summed in 16-bit lanes for at most 256 blocks (256 x 255
    /// fits), then added to the totals.
    static func rgbSums(_ samples: [UInt8], pixels count: Int) -> [Int] {
        precondition(samples.count >= count * 3)
        var sums = [0, 0, 0]
        let blocks = count / 16
        samples.withUnsafeBytes { raw in
            var done = 0
            while done < blocks {
                let run = min(blocks - done, 256)
                var lanes = (SIMD16<UInt16>.zero, SIMD16<UInt16>.zero, SIMD16<UInt16>.zero)
                for block in done..<(done + run) {
                    let base = block * 48
                    lanes.0 &+= SIMD16(
                        truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: base, as: SIMD16<UInt8>.self))
                    lanes.1 &+= SIMD16(
                        truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: base + 16, as: SIMD16<UInt8>.self))
                    lanes.2 &+= SIMD16(
                        truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: base + 32, as: SIMD16<UInt8>.self))
                }
                for lane in 0..<16 {
                    sums[lane % 3] += Int(lanes.0[lane])
                    sums[(16 + lane) % 3] += Int(lanes.1[lane])
                    sums[(32 + lane) % 3] += Int(lanes.2[lane])
                }
                done += run
            }
            for index in stride(from: blocks * 48, to: count * 3, by: 3) {
                sums[0] += Int(raw[index])
                sums[1] += Int(raw[index + 1])
                sums[2] += Int(raw[index + 2])
            }
        }
        return sums
    }

    /// The largest difference between two colours' channels.
    static func difference(_ a: [Double], _ b: [Double]) -> Double? {
        zip(a, b).map { abs($0 - $1) }.max()
    }

    static func hex(_ color: [Double]) -> String {
        let bytes = color.map { UInt8(min(255, max(0, $0.rounded()))) }
        return RGBColor(red: bytes[0], green: bytes[1], blue: bytes[2]).description
    }
}
