import Foundation
import LadderCore
import LadderImaging
import Testing

/// SSIM checked against an independent implementation: scikit-image's structural_similarity on
/// the same planes, set up as Wang et al. 2004 define SSIM. The planes are generated here with
/// integer arithmetic that scripts/reference/ssim_reference.py repeats exactly; that script
/// printed the reference values below.
@Suite("Image quality measures")
struct ImageQualityTests {
    /// (name, width, height, scikit-image's SSIM), from `python3 scripts/reference/ssim_reference.py`
    /// with scikit-image 0.26.0, numpy 2.4.6.
    static let reference: [(String, Int, Int, Double)] = [
        ("noisy gradient", 64, 48, 0.443403391381),
        ("blurred texture", 37, 53, 0.067765811854),
        ("quantized texture", 80, 60, 0.992037801872),
        ("brighter gradient", 50, 40, 0.995703184944),
        ("inverted texture", 40, 30, -0.981413896052),
        ("flat against noise", 33, 21, 0.159865587330),
        ("one window", 11, 11, 0.956120375855),
        ("wide noisy texture", 300, 17, 0.995134510776),
        // Over 2^20 windows: measured in row bands on a machine with two or more cores.
        ("large noisy texture", 1500, 1400, 0.994863263626),
    ]

    static func planes(_ name: String, width w: Int, height h: Int) -> (picture: [UInt8], reference: [UInt8]) {
        switch name {
        case "noisy gradient": return (noisy(gradient(w, h), 20), gradient(w, h))
        case "blurred texture": return (boxBlur(texture(w, h), w, h), texture(w, h))
        case "quantized texture": return (texture(w, h).map { $0 & 0xE0 | 0x10 }, texture(w, h))
        case "brighter gradient": return (gradient(w, h).map { UInt8(min(255, Int($0) + 10)) }, gradient(w, h))
        case "inverted texture": return (texture(w, h).map { 255 - $0 }, texture(w, h))
        case "flat against noise":
            let flat = [UInt8](repeating: 128, count: w * h)
            return (flat, noisy(flat, 30))
        case "one window": return (noisy(texture(w, h), 40), texture(w, h))
        case "wide noisy texture", "large noisy texture": return (noisy(texture(w, h), 12), texture(w, h))
        default: fatalError("no plane named \(name)")
        }
    }

    @Test("SSIM equals scikit-image's on generated planes", arguments: reference.map(\.0))
    func matchesScikitImage(_ name: String) throws {
        let (_, width, height, expected) = try #require(Self.reference.first { $0.0 == name })
        let (picture, reference) = Self.planes(name, width: width, height: height)
        let value = ImageQuality.ssim(picture, reference: reference, width: width, height: height)
        #expect(abs(value - expected) < 1e-5, "\(name): \(value), scikit-image says \(expected)")
    }

    /// (name, width, height, the reference's mean of SSIM's contrast-structure term), from the
    /// same script.
    static let structureReference: [(String, Int, Int, Double)] = [
        ("noisy gradient", 64, 48, 0.443541331630),
        ("blurred texture", 37, 53, 0.067792601428),
        ("inverted texture", 40, 30, -0.989153375224),
        ("wide noisy texture", 300, 17, 0.995183359513),
    ]

    @Test("SSIM's contrast-structure term equals the reference's", arguments: structureReference.map(\.0))
    func structureMatchesReference(_ name: String) throws {
        let (_, width, height, expected) = try #require(Self.structureReference.first { $0.0 == name })
        let (picture, reference) = Self.planes(name, width: width, height: height)
        let value = ImageQuality.structure([picture], reference: reference, width: width, height: height)[0]
        #expect(abs(value.contrastStructure - expected) < 1e-5, "\(name): \(value), the reference says \(expected)")
        #expect(value.ssim == ImageQuality.ssim(picture, reference: reference, width: width, height: height))
    }

    /// (name, view width, view height, the Y, Cb and Cr planes' cases, the reference's measure
    /// of the view: multi-scale SSIM over three scales, the planes weighted 0.8, 0.1 and 0.1),
    /// from the same script.
    static let shownReference: [(String, Int, Int, [String], Double)] = [
        (
            "phone view 1280 x 960", 1280, 960, ["wide noisy texture", "noisy gradient", "blurred texture"],
            0.928982956812
        ),
        (
            "phone view 1280 x 853", 1280, 853, ["noisy gradient", "quantized texture", "wide noisy texture"],
            0.763735866766
        ),
        (
            "small view 600 x 450", 600, 450, ["blurred texture", "wide noisy texture", "noisy gradient"],
            0.676725955857
        ),
        ("view of 70 x 45", 70, 45, ["noisy gradient", "quantized texture", "blurred texture"], 0.859495557833),
    ]

    @Test(
        "the screen's measure of a view is the reference's multi-scale SSIM, luma weighted 0.8",
        arguments: shownReference.map(\.0))
    func shownMatchesReference(_ name: String) throws {
        let (_, width, height, cases, expected) = try #require(Self.shownReference.first { $0.0 == name })
        let view = PixelSize(width: width, height: height)
        let planes = cases.map { Self.planes($0, width: width, height: height) }
        let value = ScreenQuality.measure([planes.map(\.picture)], reference: planes.map(\.reference), shownAt: view)[0]
        #expect(abs(value - expected) < 1e-5, "\(name): \(value), the reference says \(expected)")
    }

    @Test("a picture that misses luma's detail scores below one that misses as much of its colour")
    func lumaDetailOutweighsColour() {
        // The same loss (a 3 x 3 box blur) in luma alone, or in both chroma planes alone.
        let (width, height) = (96, 96)
        let reference = [Self.texture(width, height), Self.gradient(width, height), Self.texture(height, width)]
        let blurred = reference.map { Self.boxBlur($0, width, height) }
        let values = ScreenQuality.measure(
            [[blurred[0], reference[1], reference[2]], [reference[0], blurred[1], blurred[2]]], reference: reference,
            width: width, height: height)
        #expect(values[0] < values[1], "blurred luma \(values[0]), blurred chroma \(values[1])")
    }

    @Test("SSIM of several pictures at once equals each measured alone")
    func batch() {
        let (width, height) = (70, 45)
        let reference = Self.texture(width, height)
        let pictures = [
            Self.noisy(reference, 25), Self.boxBlur(reference, width, height), reference, reference.map { 255 - $0 },
        ]
        let together = ImageQuality.ssim(pictures, reference: reference, width: width, height: height)
        let alone = pictures.map { ImageQuality.ssim($0, reference: reference, width: width, height: height) }
        #expect(together.count == 4)
        for (a, b) in zip(together, alone) { #expect(abs(a - b) < 1e-9) }
        #expect(together[2] == 1)
    }

    @Test("on rows too wide for one pass of every picture, each picture's SSIM is still its own, exactly")
    func widePasses() {
        // 2600-pixel rows: passes of two pictures, the last one alone.
        let (width, height) = (2600, 24)
        let reference = Self.texture(width, height)
        let pictures = [
            Self.noisy(reference, 25), Self.boxBlur(reference, width, height), Self.noisy(reference, 5),
            reference.map { 255 - $0 }, Self.gradient(width, height),
        ]
        let together = ImageQuality.ssim(pictures, reference: reference, width: width, height: height)
        let alone = pictures.map { ImageQuality.ssim($0, reference: reference, width: width, height: height) }
        #expect(together == alone)
        #expect(Set(together).count == 5, "five different pictures, five values")
    }

    @Test("SSIM is 1 for identical planes and falls as damage grows")
    func ordering() {
        let (width, height) = (120, 90)
        let reference = Self.gradient(width, height)
        let values = [0, 4, 16, 48].map { amplitude in
            ImageQuality.ssim(
                amplitude == 0 ? reference : Self.noisy(reference, amplitude), reference: reference, width: width,
                height: height)
        }
        #expect(values[0] == 1)
        #expect(values == values.sorted(by: >), "\(values)")
        #expect(values[3] < 0.5)
    }

    @Test("planes smaller than the window are compared whole")
    func tinyPlanes() {
        let reference: [UInt8] = [10, 200, 30, 240, 50, 90]
        #expect(ImageQuality.ssim(reference, reference: reference, width: 3, height: 2) == 1)
        let inverted = reference.map { 255 - $0 }
        #expect(ImageQuality.ssim(inverted, reference: reference, width: 3, height: 2) < 0)
    }

    @Test("PSNR: 99 for identical planes, 10·log10(255²/MSE) otherwise")
    func psnr() {
        let reference = [UInt8](repeating: 100, count: 1000)
        #expect(ImageQuality.psnr(reference, reference: reference) == 99)
        let off = [UInt8](repeating: 110, count: 1000)
        #expect(abs(ImageQuality.psnr(off, reference: reference) - 10 * log10(255.0 * 255 / 100)) < 1e-9)
    }

    @Test("PSNR adds every squared difference exactly, the largest ones and an odd tail included")
    func psnrExact() {
        // 0 against 255 everywhere: every squared difference is the largest one, over more
        // pixels than one partial sum takes.
        let count = 300_007
        let black = [UInt8](repeating: 0, count: count)
        let white = [UInt8](repeating: 255, count: count)
        #expect(ImageQuality.psnr(black, reference: white) == 0)
        // Noise against a gradient, against the sum done pixel by pixel in 64 bits.
        let noise = Self.noisy(Self.gradient(613, 491), 90)
        let gradient = Self.gradient(613, 491)
        let sum = zip(noise, gradient).reduce(0) { $0 + (Int($1.0) - Int($1.1)) * (Int($1.0) - Int($1.1)) }
        #expect(sum > 0)
        let expected = 10 * log10(255.0 * 255 / (Double(sum) / Double(noise.count)))
        #expect(ImageQuality.psnr(noise, reference: gradient) == expected)
    }

    // MARK: - The planes (scripts/reference/ssim_reference.py makes the same)

    static func gradient(_ w: Int, _ h: Int) -> [UInt8] {
        var plane: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w { plane.append(UInt8((x * 255 * (h - 1) + y * 255 * (w - 1)) / (2 * (w - 1) * (h - 1)))) }
        }
        return plane
    }

    static func texture(_ w: Int, _ h: Int) -> [UInt8] {
        var plane: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w { plane.append(UInt8((x * x + 3 * y * y + 5 * x * y) % 256)) }
        }
        return plane
    }

    /// Adds xorshift32 noise in -amplitude...amplitude, clamped.
    static func noisy(_ plane: [UInt8], _ amplitude: Int) -> [UInt8] {
        var state: UInt32 = 2_463_534_242
        return plane.map { value in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(max(0, min(255, Int(value) + Int(state % UInt32(2 * amplitude + 1)) - amplitude)))
        }
    }

    /// A 3x3 box blur, edges repeated, rounded.
    static func boxBlur(_ plane: [UInt8], _ w: Int, _ h: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0
                for dy in -1...1 {
                    for dx in -1...1 {
                        sum += Int(plane[min(h - 1, max(0, y + dy)) * w + min(w - 1, max(0, x + dx))])
                    }
                }
                out[y * w + x] = UInt8((sum + 4) / 9)
            }
        }
        return out
    }
}
