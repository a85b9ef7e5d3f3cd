import Foundation

/// A ThumbHash: Evan Wallace's compact placeholder format (about 25 bytes) for a picture of at
/// most 100 x 100 pixels, which decodes to a blurred 32-pixel picture of the same aspect ratio.
///
/// The layout, as the format describes it: a 24-bit header (luminance DC, 6 bits; the two colour
/// differences' DCs, 6 bits each; the luminance AC scale, 5 bits; an alpha flag), a 16-bit
/// header (the count of luminance coefficients along the shorter side, 3 bits; the colour
/// differences' AC scales, 6 bits each; a landscape flag), an alpha byte when there is alpha,
/// then every AC coefficient as a 4-bit value, low nibble first: luminance, P, Q, alpha. The
/// colour space is L = (r + g + b) / 3, P = (r + g) / 2 - b, Q = r - g over the gamma-encoded
/// sRGB values, and coefficients are DCT terms in a triangle (`cx * ny < nx * (ny - cy)`).
public struct ThumbHash: Sendable, Hashable {
    /// The hash's bytes.
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads the base64 text a manifest carries; nil when it is not base64 or too short.
    public init?(base64 text: String) {
        guard let data = Data(base64Encoded: text), data.count >= 5 else { return nil }
        self.bytes = [UInt8](data)
    }

    /// The hash as the manifest writes it: base64 with padding.
    public var base64: String { Data(bytes).base64EncodedString() }

    /// A picture's pixels: 8-bit RGBA, not premultiplied, rows top to bottom.
    public struct Picture: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// `width * height * 4` samples.
        public var rgba: [UInt8]

        public init(width: Int, height: Int, rgba: [UInt8]) {
            self.width = width
            self.height = height
            self.rgba = rgba
        }
    }

    /// A colour with components from 0 to 1.
    public struct Color: Sendable, Equatable {
        public var red: Double
        public var green: Double
        public var blue: Double
        public var alpha: Double
    }

    /// The largest side a picture to encode may have.
    public static let maxSide = 100

    // MARK: - Encoding

    /// Encodes a picture of at most 100 x 100 pixels; nil when it is larger, empty, or its
    /// sample count does not match its size.
    public init?(encoding picture: Picture) {
        let w = picture.width
        let h = picture.height
        guard (1...Self.maxSide).contains(w), (1...Self.maxSide).contains(h), picture.rgba.count == w * h * 4 else {
            return nil
        }
        let count = w * h
        // The average colour, weighted by alpha.
        var sum = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<count {
            let alpha = Double(picture.rgba[i * 4 + 3]) / 255
            sum.r += alpha / 255 * Double(picture.rgba[i * 4])
            sum.g += alpha / 255 * Double(picture.rgba[i * 4 + 1])
            sum.b += alpha / 255 * Double(picture.rgba[i * 4 + 2])
            sum.a += alpha
        }
        if sum.a > 0 {
            sum.r /= sum.a
            sum.g /= sum.a
            sum.b /= sum.a
        }
        let hasAlpha = sum.a < Double(count)
        // Fewer luminance terms when alpha needs room.
        let luminanceLimit = hasAlpha ? 5 : 7
        let longest = Double(max(w, h))
        let lx = max(1, Self.round(Double(luminanceLimit * w) / longest))
        let ly = max(1, Self.round(Double(luminanceLimit * h) / longest))

        // Transparent pixels take the average colour, then everything goes to L, P, Q, A.
        var l = [Double](repeating: 0, count: count)
        var p = l
        var q = l
        var a = l
        for i in 0..<count {
            let alpha = Double(picture.rgba[i * 4 + 3]) / 255
            let r = sum.r * (1 - alpha) + alpha / 255 * Double(picture.rgba[i * 4])
            let g = sum.g * (1 - alpha) + alpha / 255 * Double(picture.rgba[i * 4 + 1])
            let b = sum.b * (1 - alpha) + alpha / 255 * Double(picture.rgba[i * 4 + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        let luminance = Self.transform(l, width: w, height: h, nx: max(3, lx), ny: max(3, ly))
        let pChannel = Self.transform(p, width: w, height: h, nx: 3, ny: 3)
        let qChannel = Self.transform(q, width: w, height: h, nx: 3, ny: 3)
        let alphaChannel = hasAlpha ? Self.transform(a, width: w, height: h, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        let header24 =
            Self.round(63 * luminance.dc) | Self.round(31.5 + 31.5 * pChannel.dc) << 6
            | Self.round(31.5 + 31.5 * qChannel.dc) << 12 | Self.round(31 * luminance.scale) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 =
            (isLandscape ? ly : lx) | Self.round(63 * pChannel.scale) << 3 | Self.round(63 * qChannel.scale) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
            UInt8(header16 & 255), UInt8(header16 >> 8),
        ]
        if let alphaChannel {
            hash.append(UInt8(Self.round(15 * alphaChannel.dc) | Self.round(15 * alphaChannel.scale) << 4))
        }
        let coefficients = [luminance, pChannel, qChannel].flatMap(\.ac) + (alphaChannel?.ac ?? [])
        let start = hash.count
        hash += [UInt8](repeating: 0, count: (coefficients.count + 1) / 2)
        for (index, value) in coefficients.enumerated() {
            hash[start + index / 2] |= UInt8(Self.round(15 * value)) << ((index & 1) * 4)
        }
        self.bytes = hash
    }

    /// A channel's DCT terms over the triangle `cx * ny < nx * (ny - cy)`: the DC term, and the
    /// AC terms mapped to 0...1 by their largest magnitude, `scale`.
    private static func transform(
        _ channel: [Double], width w: Int, height h: Int, nx: Int, ny: Int
    ) -> (dc: Double, ac: [Double], scale: Double) {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                var f = 0.0
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }

    /// Rounds halves up, as the format's reference does (every value rounded is non-negative).
    private static func round(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }

    // MARK: - Decoding

    /// The header's fields.
    private struct Header {
        var l: Double
        var p: Double
        var q: Double
        var lScale: Double
        var hasAlpha: Bool
        var pScale: Double
        var qScale: Double
        var isLandscape: Bool
        /// The luminance count along the shorter side, as stored.
        var shortCount: Int
        var a: Double
        var aScale: Double

        init?(_ hash: [UInt8]) {
            guard hash.count >= 5 else { return nil }
            let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
            let header16 = Int(hash[3]) | Int(hash[4]) << 8
            l = Double(header24 & 63) / 63
            p = Double(header24 >> 6 & 63) / 31.5 - 1
            q = Double(header24 >> 12 & 63) / 31.5 - 1
            lScale = Double(header24 >> 18 & 31) / 31
            hasAlpha = header24 >> 23 != 0
            pScale = Double(header16 >> 3 & 63) / 63
            qScale = Double(header16 >> 9 & 63) / 63
            isLandscape = header16 >> 15 != 0
            shortCount = header16 & 7
            if hasAlpha {
                guard hash.count >= 6 else { return nil }
                a = Double(hash[5] & 15) / 15
                aScale = Double(hash[5] >> 4) / 15
            } else {
                a = 1
                aScale = 0
            }
        }

        var longCount: Int { hasAlpha ? 5 : 7 }
    }

    /// The picture's average colour, read from the header alone; nil when the hash is too short.
    public var averageColor: Color? {
        guard let header = Header(bytes) else { return nil }
        let (r, g, b) = Self.rgb(l: header.l, p: header.p, q: header.q)
        return Color(red: Self.clamp(r), green: Self.clamp(g), blue: Self.clamp(b), alpha: header.a)
    }

    /// The aspect ratio (width / height) the hash approximates; nil when it is too short.
    public var approximateAspectRatio: Double? {
        guard let header = Header(bytes), header.shortCount > 0 else { return nil }
        let long = Double(header.longCount)
        let short = Double(header.shortCount)
        return header.isLandscape ? long / short : short / long
    }

    /// Whether the hash is whole: a header, and every coefficient its header announces.
    /// Cheaper than `picture()`, which it agrees with on whether a picture can be made.
    public var isComplete: Bool {
        guard let header = Header(bytes), approximateAspectRatio != nil else { return false }
        let lx = max(3, header.isLandscape ? header.longCount : header.shortCount)
        let ly = max(3, header.isLandscape ? header.shortCount : header.longCount)
        let nibbles =
            Self.acCount(nx: lx, ny: ly) + 2 * Self.acCount(nx: 3, ny: 3)
            + (header.hasAlpha ? Self.acCount(nx: 5, ny: 5) : 0)
        return (header.hasAlpha ? 6 : 5) + (nibbles + 1) / 2 <= bytes.count
    }

    /// The number of AC coefficients of an nx by ny channel: the triangle cx * ny < nx * (ny - cy)
    /// without the DC.
    static func acCount(nx: Int, ny: Int) -> Int {
        (0..<ny).reduce(0) { count, cy in
            var cx = cy > 0 ? 0 : 1
            var row = 0
            while cx * ny < nx * (ny - cy) {
                row += 1
                cx += 1
            }
            return count + row
        }
    }

    /// Decodes to a blurred picture whose longer side is 32 pixels; nil when the hash is too
    /// short for what its header announces.
    public func picture() -> Picture? {
        guard let header = Header(bytes), let ratio = approximateAspectRatio else { return nil }
        let lx = max(3, header.isLandscape ? header.longCount : header.shortCount)
        let ly = max(3, header.isLandscape ? header.shortCount : header.longCount)
        var index = 0
        let start = header.hasAlpha ? 6 : 5
        func channel(nx: Int, ny: Int, scale: Double) -> [Double]? {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let position = start + index / 2
                    guard position < bytes.count else { return nil }
                    let nibble = Int(bytes[position]) >> ((index & 1) * 4) & 15
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    index += 1
                    cx += 1
                }
            }
            return ac
        }
        // The colour differences' scales are widened a little, as the reference decoder does,
        // to make up for the quantization's loss of saturation.
        guard let lAC = channel(nx: lx, ny: ly, scale: header.lScale),
            let pAC = channel(nx: 3, ny: 3, scale: header.pScale * 1.25),
            let qAC = channel(nx: 3, ny: 3, scale: header.qScale * 1.25),
            let aAC = header.hasAlpha ? channel(nx: 5, ny: 5, scale: header.aScale) : []
        else { return nil }

        let w = ratio > 1 ? 32 : Self.round(32 * ratio)
        let h = ratio > 1 ? Self.round(32 / ratio) : 32
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        let columns = max(lx, header.hasAlpha ? 5 : 3)
        let rows = max(ly, header.hasAlpha ? 5 : 3)
        var fx = [Double](repeating: 0, count: columns)
        var fy = [Double](repeating: 0, count: rows)
        /// Adds one channel's AC terms at the current pixel.
        func sum(_ ac: [Double], nx: Int, ny: Int) -> Double {
            var value = 0.0
            var j = 0
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                let fy2 = fy[cy] * 2
                while cx * ny < nx * (ny - cy) {
                    value += ac[j] * fx[cx] * fy2
                    j += 1
                    cx += 1
                }
            }
            return value
        }
        // The horizontal cosines are the same on every row: computed once per column.
        let cosinesX = (0..<w).flatMap { x in
            (0..<columns).map { cx in cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
        }
        for y in 0..<h {
            for cy in 0..<rows { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
            for x in 0..<w {
                for cx in 0..<columns { fx[cx] = cosinesX[x * columns + cx] }
                let l = header.l + sum(lAC, nx: lx, ny: ly)
                let p = header.p + sum(pAC, nx: 3, ny: 3)
                let q = header.q + sum(qAC, nx: 3, ny: 3)
                let a = header.hasAlpha ? header.a + sum(aAC, nx: 5, ny: 5) : 1
                let (r, g, b) = Self.rgb(l: l, p: p, q: q)
                let offset = (y * w + x) * 4
                rgba[offset] = Self.byte(r)
                rgba[offset + 1] = Self.byte(g)
                rgba[offset + 2] = Self.byte(b)
                rgba[offset + 3] = Self.byte(a)
            }
        }
        return Picture(width: w, height: h, rgba: rgba)
    }

    /// From the format's L, P, Q back to red, green and blue.
    private static func rgb(l: Double, p: Double, q: Double) -> (Double, Double, Double) {
        let b = l - 2 / 3 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }

    private static func clamp(_ value: Double) -> Double { min(1, max(0, value)) }

    /// Truncates, as the reference decoders store their samples.
    private static func byte(_ value: Double) -> UInt8 { UInt8(255 * clamp(value)) }
}
