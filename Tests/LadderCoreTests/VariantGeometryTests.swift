import LadderCore
import LadderImaging
import Testing

@Suite("Variant sizes")
struct VariantGeometryTests {
    @Test(
        "a variant fits its box, keeps the aspect ratio and is never upscaled",
        arguments: [
            (4000, 3000, 2560, 2560, 2560, 1920),
            (3000, 4000, 2560, 2560, 1920, 2560),
            (4000, 3000, 160, 160, 160, 120),
            (1000, 800, 2560, 2560, 1000, 800),  // smaller than the box: unchanged
            (6000, 100, 640, 640, 640, 11),  // 10.67 rounds to 11
            (10000, 1, 160, 160, 160, 1),  // never below one pixel
            (1, 1, 160, 160, 1, 1),
            (1000, 1000, 300, 200, 200, 200),
        ])
    func fitting(
        _ width: Int, _ height: Int, _ boxWidth: Int, _ boxHeight: Int, _ expectedWidth: Int, _ expectedHeight: Int
    ) {
        let fitted = VariantGeometry.fit(
            PixelSize(width: width, height: height), inside: PixelSize(width: boxWidth, height: boxHeight))
        #expect(fitted == PixelSize(width: expectedWidth, height: expectedHeight))
        #expect(fitted.width <= max(boxWidth, 1) && fitted.height <= boxHeight)
    }
}
