import LadderImaging
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
            // Asked for RGB, libjpeg converts while decoding: the same samples.
            let direct = try DecodedPixels(decodingJPEG: jpeg, rgb: true)
            #expect(direct.colorModel == .rgb && direct.samples == libjpeg.samples, "\(width)x\(height) \(options)")
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
