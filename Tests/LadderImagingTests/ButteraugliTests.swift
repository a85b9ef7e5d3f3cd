import LadderCore
import LadderImaging
import Testing

/// Butteraugli, the measure the format siblings' quality is held to, against libjxl's own
/// butteraugli called from Python on the same pixels (scripts/reference/butteraugli_reference.py).
@Suite("Butteraugli")
struct ButteraugliTests {
    static let width = 64
    static let height = 48

    /// (picture, 3-norm, max) from scripts/reference/butteraugli_reference.py (libjxl 0.7).
    static let references: [(String, Double, Double)] = [
        ("identical", 0.000000, 0.000000),
        ("noisy", 1.717801, 3.059717),
        ("posterized", 4.264297, 6.630425),
    ]

    /// The reference picture: red across, green down, blue a product pattern.
    static func reference() -> [UInt8] {
        var samples: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                samples += [UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), UInt8(x * y * 7 % 256)]
            }
        }
        return samples
    }

    /// xorshift32 (Marsaglia 2003), as the Python script draws it.
    static func noise(count: Int) -> [Int] {
        var state: UInt32 = 2_463_534_242
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return Int(state % 17) - 8
        }
    }

    static func picture(_ name: String) -> [UInt8] {
        let original = reference()
        switch name {
        case "noisy": return zip(original, noise(count: original.count)).map { UInt8(max(0, min(255, Int($0) + $1))) }
        case "posterized": return original.map { $0 / 32 * 32 + 16 }
        default: return original
        }
    }

    @Test("distances match libjxl's butteraugli called on the same pixels", arguments: references)
    func matchesReference(_ reference: (String, Double, Double)) throws {
        TestImages.start()
        let original = try Image(
            pixels: Self.reference(), width: Self.width, height: Self.height, bands: 3, space: .sRGB)
        let distorted = try Image(
            pixels: Self.picture(reference.0), width: Self.width, height: Self.height, bands: 3, space: .sRGB)
        let distance = try Butteraugli.distance(original, distorted)
        #expect(abs(distance.norm3 - reference.1) <= 1e-4 + reference.1 * 1e-4, "\(reference.0): \(distance)")
        #expect(abs(distance.max - reference.2) <= 1e-4 + reference.2 * 1e-4, "\(reference.0): \(distance)")
    }

    @Test("pictures of different sizes are refused with both sizes in the message")
    func refusesMismatch() throws {
        TestImages.start()
        let original = try Image(
            pixels: Self.reference(), width: Self.width, height: Self.height, bands: 3, space: .sRGB)
        let smaller = try Image(pixels: [UInt8](repeating: 9, count: 12), width: 2, height: 2, bands: 3, space: .sRGB)
        #expect { try Butteraugli.distance(original, smaller) } throws: { "\($0)".contains("64x48") }
    }
}
