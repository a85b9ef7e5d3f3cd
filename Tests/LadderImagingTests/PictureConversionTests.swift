import LadderImaging
import LadderTestSupport
import Testing

/// The conversions replays apply to decoded pictures, checked against libjpeg's own.
@Suite("Picture conversions")
struct PictureConversionTests {
    init() { TestImages.start() }

    @Test("YCbCr to RGB gives exactly libjpeg's RGB output", arguments: ["Q=90", "Q=90,subsample_mode=off"])
    func yCbCrToRGB(_ options: String) throws {
        // Odd sizes leave a few pixels past the last group of eight.
        for (width, height) in [(101, 37), (64, 48), (5, 3)] {
            let jpeg = try TestImages.gradient(width: width, height: height, seed: 3).encoded(as: ".jpg[\(options)]")
            let yCbCr = try DecodedPixels(decodingJPEG: jpeg)
            #expect(yCbCr.colorModel == .yCbCr)
            // libvips decodes with libjpeg asking for RGB: libjpeg's own color converter.
            let libjpeg = try Image(decoding: jpeg).inMemory().decodedPixels()
            let converted = yCbCr.displayable()
            #expect(converted.colorModel == .rgb && converted.components == 3)
            #expect(converted.samples == libjpeg.samples, "\(width)x\(height) \(options)")
        }
    }

    @Test("a decode at 1/8 scale is a DC picture of the rounded-up size with the full decode's mean colour")
    func eighthScale() throws {
        func mean(_ pixels: DecodedPixels) -> [Double] {
            let shown = pixels.displayable()
            let count = Double(shown.width * shown.height)
            return (0..<3).map { channel in
                stride(from: channel, to: shown.samples.count, by: 3).reduce(0.0) { $0 + Double(shown.samples[$1]) }
                    / count
            }
        }
        let saturated = TestImages.quadrants(width: 161, height: 119)
        let pictures = [
            try TestImages.gradient(width: 160, height: 120, seed: 2).encoded(as: ".jpg[Q=80]"),
            try Image(pixels: saturated.pixels, width: 161, height: 119, bands: 3, space: .sRGB)
                .encoded(as: ".jpg[Q=80]"),
        ]
        for jpeg in pictures {
            let full = try DecodedPixels(decodingJPEG: jpeg)
            let eighth = try DecodedPixels(decodingJPEG: jpeg, scaleDenominator: 8)
            #expect(eighth.width == (full.width + 7) / 8 && eighth.height == (full.height + 7) / 8)
            for (a, b) in zip(mean(full), mean(eighth)) { #expect(abs(a - b) < 1.5, "\(mean(full)) \(mean(eighth))") }
        }
    }

    @Test("a luma-only decode is the Y plane of the full decode")
    func lumaOnly() throws {
        let jpeg = try TestImages.gradientJPEG(width: 123, height: 77, seed: 5)
        let luma = try DecodedPixels(decodingJPEG: jpeg, lumaOnly: true)
        let full = try DecodedPixels(decodingJPEG: jpeg)
        #expect(luma.colorModel == .grayscale && luma.components == 1)
        #expect(luma.samples == full.luma())
        #expect(luma.samples.count == 123 * 77)
    }
}
