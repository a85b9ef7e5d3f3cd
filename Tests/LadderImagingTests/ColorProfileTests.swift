import Foundation
import LadderImaging
import Testing

/// Telling wide-gamut profiles from sRGB ones, on real files' embedded profiles.
@Suite("Color profiles of real files", .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)))
struct ColorProfileTests {
    init() { TestImages.start() }

    static func profile(_ relative: String) throws -> ColorProfile? {
        _ = try Corpus.required()
        let path = try #require(Corpus.path(relative))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let icc = try #require(try ImageHeader(reading: bytes).iccProfile, "\(relative) has a profile")
        return ColorProfile(iccData: icc)
    }

    @Test(
        "Display P3, Rec. 2020, Adobe RGB and ProPhoto profiles are wider than sRGB",
        arguments: [
            "formats/P3-sRGB-color-ring.jpg", "formats/R2020-sRGB-color-ring.jpg", "formats/sample_a98_icc.jpg",
            "formats/Canon_EOS_7D_adobergb.jpg", "formats/xmp_test_adobergb.jpg", "formats/p3.png",
            "formats/prophoto_1x1.png",
        ])
    func wide(_ file: String) throws {
        let profile = try #require(try Self.profile(file))
        #expect(profile.isWideGamut, "\(profile)")
        #expect(profile.primaries?.count == 3)
    }

    @Test(
        "sRGB, gray and CMYK profiles are not",
        arguments: [
            "formats/progressive_cat_icc.jpg", "formats/concert_gray_icc.jpg",
            "formats/Channel_digital_image_CMYK_color.jpg",
        ])
    func notWide(_ file: String) throws {
        let profile = try #require(try Self.profile(file))
        #expect(!profile.isWideGamut, "\(profile)")
    }

    @Test("profiles are named as they name themselves")
    func names() throws {
        #expect(try Self.profile("formats/progressive_cat_icc.jpg")?.name?.contains("sRGB") == true)
        #expect(try Self.profile("formats/concert_gray_icc.jpg")?.primaries == nil, "gray has no RGB primaries")
    }
}

@Suite("Color profiles")
struct ColorProfileParsingTests {
    @Test("bytes that are not a profile give nothing")
    func garbage() {
        #expect(ColorProfile(iccData: Array("not a profile".utf8)) == nil)
        #expect(ColorProfile(iccData: []) == nil)
    }
}
