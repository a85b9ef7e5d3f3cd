import LadderManifest
import Testing

@Suite("Colours")
struct RGBColorTests {
    @Test("colours parse from #rrggbb in either case and print back in lower case; nothing else parses")
    func parsing() {
        #expect(RGBColor("#FF8000") == RGBColor(red: 255, green: 128, blue: 0))
        #expect(RGBColor("#ff8000")?.description == "#ff8000")
        #expect(RGBColor.white.description == "#ffffff")
        // "#+12345" and "#-0001f" were taken by a parser that read the digits as a signed number.
        for bad in ["ff8000", "#ff80", "#gg8000", "#ff80000", "white", "#+12345", "#-0001f", "# 12345", ""] {
            #expect(RGBColor(bad) == nil, "\(bad)")
        }
    }
}
