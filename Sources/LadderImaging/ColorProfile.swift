internal import CLCMS
internal import CLadder
internal import Foundation

/// What an embedded ICC profile says about an image's colors, read with Little CMS.
package struct ColorProfile: Sendable, Equatable {
    /// A point of the CIE xy chromaticity diagram.
    package struct Chromaticity: Sendable, Equatable {
        package var x: Double
        package var y: Double
    }

    /// The profile's own name for itself ("Display P3", "Adobe RGB (1998)"), when it has one.
    package var name: String?
    /// The chromaticities of pure red, green and blue (relative to D50); nil for profiles of
    /// other color spaces (gray, CMYK, Lab).
    package var primaries: [Chromaticity]?

    /// How far (in xy) a primary may lie outside sRGB's triangle before the gamut counts as
    /// wider: sRGB profiles from different makers differ by a few thousandths.
    static let tolerance = 0.01

    /// Reads an ICC profile; nil when Little CMS cannot.
    package init?(iccData data: [UInt8]) {
        let opened = data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        guard let profile = opened else { return nil }
        defer { cmsCloseProfile(profile) }
        var buffer = [CChar](repeating: 0, count: 256)
        let length = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(256))
        let text =
            length > 0 ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        name = trimmed.isEmpty ? nil : trimmed

        var xy = [Double](repeating: 0, count: 6)
        let status = data.withUnsafeBytes { ladder_icc_primaries($0.baseAddress!, $0.count, &xy) }
        primaries = status == 0 ? Self.chromaticities(xy) : nil
    }

    /// sRGB's primaries, measured the same way.
    static let sRGBPrimaries: [Chromaticity]? = {
        var xy = [Double](repeating: 0, count: 6)
        return ladder_srgb_primaries(&xy) == 0 ? chromaticities(xy) : nil
    }()

    private static func chromaticities(_ xy: [Double]) -> [Chromaticity] {
        (0..<3).map { Chromaticity(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
    }

    /// True when a primary lies outside sRGB's gamut: colors the variants (sRGB) cannot show
    /// will be brought inside it.
    package var isWideGamut: Bool {
        guard let primaries, let reference = Self.sRGBPrimaries else { return false }
        return primaries.contains { Self.distanceOutside($0, triangle: reference) > Self.tolerance }
    }

    /// How far `point` lies outside the triangle (0 inside): the largest distance past an edge.
    static func distanceOutside(_ point: Chromaticity, triangle: [Chromaticity]) -> Double {
        // Orient the edges so that the inside is on the left of each.
        let (a, b, c) = (triangle[0], triangle[1], triangle[2])
        let clockwise = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) < 0
        let corners = clockwise ? [a, c, b] : [a, b, c]
        var outside = 0.0
        for index in 0..<3 {
            let start = corners[index]
            let end = corners[(index + 1) % 3]
            let length = ((end.x - start.x) * (end.x - start.x) + (end.y - start.y) * (end.y - start.y)).squareRoot()
            guard length > 0 else { continue }
            // Negative cross product: the point is on the right of the edge, outside.
            let cross = (end.x - start.x) * (point.y - start.y) - (end.y - start.y) * (point.x - start.x)
            outside = max(outside, -cross / length)
        }
        return outside
    }
}
