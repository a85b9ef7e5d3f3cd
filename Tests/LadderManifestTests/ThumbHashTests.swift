import Foundation
import LadderManifest
import Testing

/// ladder's ThumbHash encoder and decoder against another implementation's output
/// (References/ThumbHashReferences.swift, made by the `thumbhash` package from PyPI).
@Suite struct ThumbHashTests {
    /// The pictures the reference script made, from the same integer formulas.
    static func picture(_ pattern: String, width w: Int, height h: Int) -> ThumbHash.Picture {
        var rgba: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                let pixel: [Int]
                switch pattern {
                case "gradient":
                    pixel = [x * 255 / max(1, w - 1), y * 255 / max(1, h - 1), (x * 7 + y * 13) % 256, 255]
                case "alpha": pixel = [x * 255 / (w - 1), 180, y * 255 / (h - 1), (x + y) * 255 / (w + h - 2)]
                case "blocks":
                    pixel = ((x + 3) / 13 + (y + 5) / 11) % 2 == 0 ? [200, 40, 30, 255] : [20, 90, 220, 255]
                default:
                    let v = 60 + (x * 3 + y * 2) % 120
                    pixel = [v, v, v, 255]
                }
                rgba += pixel.map { UInt8($0) }
            }
        }
        return ThumbHash.Picture(width: w, height: h, rgba: rgba)
    }

    @Test("encodes every reference picture to the reference's bytes", arguments: thumbHashReferences.indices)
    func encodesLikeTheReference(_ index: Int) {
        let reference = thumbHashReferences[index]
        let hash = ThumbHash(
            encoding: Self.picture(reference.pattern, width: reference.width, height: reference.height))
        #expect(hash?.base64 == reference.hash, "\(reference.pattern) \(reference.width)x\(reference.height)")
    }

    @Test(
        "decodes every reference hash to the reference's picture, within one level",
        arguments: thumbHashReferences.indices)
    func decodesLikeTheReference(_ index: Int) throws {
        let reference = thumbHashReferences[index]
        let parts = reference.decoded.split(separator: ":")
        let size = parts[0].split(separator: "x").compactMap { Int($0) }
        let expected = try #require(Data(base64Encoded: String(parts[1])))
        let picture = try #require(ThumbHash(base64: reference.hash)?.picture())
        #expect([picture.width, picture.height] == size)
        #expect(picture.rgba.count == expected.count)
        let worst = zip(picture.rgba, expected).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 1, "\(reference.pattern): a sample differs by \(worst)")
    }

    @Test("the header's average is the picture's average colour", arguments: ["blocks", "gradient"])
    func averageColor(_ pattern: String) throws {
        let picture = Self.picture(pattern, width: 90, height: 70)
        let hash = try #require(ThumbHash(encoding: picture))
        let average = try #require(hash.averageColor)
        let count = Double(picture.width * picture.height)
        let mean = (0..<3).map { channel in
            stride(from: channel, to: picture.rgba.count, by: 4).reduce(0.0) { $0 + Double(picture.rgba[$1]) } / count
        }
        // ThumbHash quantizes the mean: 6 bits of luminance, 6 bits over twice the range per difference.
        #expect(abs(average.red * 255 - mean[0]) < 7)
        #expect(abs(average.green * 255 - mean[1]) < 7)
        #expect(abs(average.blue * 255 - mean[2]) < 7)
        #expect(average.alpha == 1)
    }

    @Test("a hash records alpha only when some pixel is not opaque")
    func alphaFlag() throws {
        let opaque = try #require(ThumbHash(encoding: Self.picture("gradient", width: 100, height: 75)))
        let clear = try #require(ThumbHash(encoding: Self.picture("alpha", width: 100, height: 100)))
        #expect(opaque.averageColor?.alpha == 1)
        #expect((clear.averageColor?.alpha ?? 1) < 1)
    }

    @Test("refuses pictures over 100 pixels, empty ones and short hashes")
    func refusals() {
        #expect(ThumbHash(encoding: .init(width: 101, height: 10, rgba: .init(repeating: 0, count: 101 * 40))) == nil)
        #expect(ThumbHash(encoding: .init(width: 0, height: 10, rgba: [])) == nil)
        #expect(ThumbHash(encoding: .init(width: 2, height: 2, rgba: [0, 0, 0])) == nil)
        #expect(ThumbHash(base64: "AAAA") == nil)
        #expect(ThumbHash(base64: "not base64!") == nil)
        #expect(ThumbHash(bytes: [0x20, 0x00, 0x00, 0x07, 0x00]).picture() == nil)
    }

    @Test("a hash is complete exactly when it decodes to a picture, for every cut of every reference hash")
    func completeness() throws {
        var cuts = 0
        for reference in thumbHashReferences {
            let bytes = try #require(ThumbHash(base64: reference.hash)).bytes
            for length in 0...bytes.count {
                let hash = ThumbHash(bytes: Array(bytes.prefix(length)))
                #expect(hash.isComplete == (hash.picture() != nil), "\(reference.hash) cut to \(length) bytes")
                cuts += 1
            }
            #expect(ThumbHash(bytes: bytes).isComplete)
        }
        #expect(cuts > 100)
    }
}
