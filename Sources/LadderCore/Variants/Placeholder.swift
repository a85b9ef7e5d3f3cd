package import LadderImaging
package import LadderManifest

/// What an app shows before any variant arrives, as the manifest records it: a ThumbHash of the
/// upright, flattened picture and its mean colour.
package struct Placeholder: Sendable, Equatable, Codable {
    /// The ThumbHash, base64 with padding.
    package var thumbHash: String
    /// The picture's mean colour in sRGB, `#rrggbb`.
    package var averageColor: String

    package init(thumbHash: String, averageColor: String) {
        self.thumbHash = thumbHash
        self.averageColor = averageColor
    }

    /// From a picture rendering already made (8-bit, upright, flattened): libvips shrinks it to
    /// fit 100 x 100 pixels, the largest a ThumbHash takes, then both values are computed from
    /// those pixels. Made from the smallest variant's picture, this costs a resize of a few
    /// thousand pixels.
    package init(of picture: Image) throws(ImagingError) {
        let side = ThumbHash.maxSide
        let scale = min(1, Double(side) / Double(picture.width), Double(side) / Double(picture.height))
        let size = PixelSize(
            width: min(side, max(1, Int((Double(picture.width) * scale).rounded()))),
            height: min(side, max(1, Int((Double(picture.height) * scale).rounded()))))
        let small = try picture.resized(to: size, with: .triangle).inMemory()
        let rgba = try small.withPixels { raw in Self.rgba(raw, bands: small.bands, hasAlpha: small.hasAlpha) }
        let pixels = ThumbHash.Picture(width: size.width, height: size.height, rgba: rgba)
        guard let hash = ThumbHash(encoding: pixels) else {
            throw ImagingError(operation: "placeholder", path: nil, reason: "cannot encode a \(size) picture")
        }
        self.init(thumbHash: hash.base64, averageColor: Self.mean(of: pixels).description)
    }

    /// Widens 8-bit gray, gray + alpha, RGB or RGBA samples to RGBA.
    static func rgba(_ raw: UnsafeRawBufferPointer, bands: Int, hasAlpha: Bool) -> [UInt8] {
        let count = raw.count / max(1, bands)
        var rgba = [UInt8](repeating: 255, count: count * 4)
        let colors = bands - (hasAlpha ? 1 : 0)
        for i in 0..<count {
            let base = i * bands
            if colors >= 3 {
                rgba[i * 4] = raw[base]
                rgba[i * 4 + 1] = raw[base + 1]
                rgba[i * 4 + 2] = raw[base + 2]
            } else {
                rgba[i * 4] = raw[base]
                rgba[i * 4 + 1] = raw[base]
                rgba[i * 4 + 2] = raw[base]
            }
            if hasAlpha { rgba[i * 4 + 3] = raw[base + bands - 1] }
        }
        return rgba
    }

    /// The mean of the gamma-encoded samples, rounded: what the manifest calls the average
    /// colour, and what ThumbHash's own DC terms approximate.
    package static func mean(of picture: ThumbHash.Picture) -> RGBColor {
        var sums = [0, 0, 0]
        let count = picture.width * picture.height
        for i in 0..<count {
            for channel in 0..<3 { sums[channel] += Int(picture.rgba[i * 4 + channel]) }
        }
        let mean = sums.map { UInt8((Double($0) / Double(max(1, count))).rounded()) }
        return RGBColor(red: mean[0], green: mean[1], blue: mean[2])
    }
}
