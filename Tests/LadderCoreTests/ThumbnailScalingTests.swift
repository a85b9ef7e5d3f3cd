import LadderCore
import LadderImaging
import Testing

/// The stretch of a thumbnail to the full picture's size (what the ladder timeline measures),
/// checked against libvips' own bilinear interpolator with the same pixel-centre convention.
@Suite("Thumbnail scaling")
struct ThumbnailScalingTests {
    /// (name, source width, height, target width, height)
    static let cases: [(String, Int, Int, Int, Int)] = [
        ("noise, 8x", 40, 30, 320, 240),
        ("noise, factor not an integer", 37, 23, 301, 197),
        ("gradient, odd sizes", 33, 21, 257, 171),
        ("noise, different factors across and down", 50, 40, 123, 411),
        ("noise, one pixel wide", 1, 17, 9, 150),
        ("noise, one pixel tall", 23, 1, 200, 7),
        ("noise, one pixel", 1, 1, 13, 11),
        ("noise, one axis unchanged", 64, 20, 64, 87),
        ("noise, a thumbnail's factor", 320, 214, 2560, 1707),
    ]

    static func plane(_ name: String, width: Int, height: Int) -> [UInt8] {
        var state: UInt32 = 0x9E37_79B9 &+ UInt32(width * 131 + height)
        return (0..<(width * height)).map { index in
            if name.hasPrefix("gradient") {
                let (x, y) = (index % width, index / width)
                return UInt8((x * 255 / max(1, width - 1) + y * 7) % 256)
            }
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test(
        "a stretched plane is libvips' bilinear stretch to within one level",
        .enabled(if: ExternalTools.runs(with: ExternalTools.vips), ExternalTools.absence(ExternalTools.vipsPackage)),
        arguments: cases.map(\.0))
    func matchesLibvipsBilinear(_ name: String) throws {
        let (_, width, height, targetWidth, targetHeight) = try #require(Self.cases.first { $0.0 == name })
        let source = Self.plane(name, width: width, height: height)
        let scaled = BilinearScaling.scaled(
            source, width: width, height: height, to: PixelSize(width: targetWidth, height: targetHeight))
        let expected = try ExternalTools.vipsBilinear(
            source, width: width, height: height, toWidth: targetWidth, height: targetHeight)
        #expect(scaled.count == targetWidth * targetHeight)
        #expect(expected.count == scaled.count)
        let worst = zip(scaled, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(name): a pixel \(worst) levels from libvips'")
    }

    @Test("a plane scaled to its own size is unchanged, and a flat plane stays flat")
    func identities() {
        let source = Self.plane("noise", width: 31, height: 17)
        #expect(BilinearScaling.scaled(source, width: 31, height: 17, to: PixelSize(width: 31, height: 17)) == source)
        let flat = [UInt8](repeating: 77, count: 12 * 5)
        let stretched = BilinearScaling.scaled(flat, width: 12, height: 5, to: PixelSize(width: 97, height: 43))
        #expect(stretched == [UInt8](repeating: 77, count: 97 * 43))
    }
}
