import LadderCore
import LadderImaging
import Testing

@Suite("JPEG structure")
struct JPEGStructureTests {
    init() { TestImages.start() }

    @Test("scans are found by walking segments, not fooled by the markers of an EXIF thumbnail")
    func exifThumbnail() throws {
        let source = try TestImages.cameraJPEG()
        let structure = try JPEGStructure(parsing: source)
        #expect(structure.scans.count == 1, "a baseline file has one scan")
        // A naive search for FF DA also counts the thumbnail's own scan inside the EXIF block.
        let naive = zip(source, source.dropFirst()).filter { $0 == 0xFF && $1 == 0xDA }.count
        #expect(naive > structure.scans.count)
        #expect(structure.applicationSegments.contains { $0.signature == "Exif" })
    }

    @Test("scan end offsets rise and the last one ends at the EOI marker")
    func offsets() throws {
        let image = try TestImages.gradient(width: 300, height: 200)
        let jpeg = try image.jpegEncoded(
            JPEGEncoding(quality: 85, fullChroma: false, scans: ScanScript.recommendedColor.scans))
        let structure = try JPEGStructure(parsing: jpeg)
        #expect(structure.scans.count == 5)
        let ends = structure.scans.map(\.endOffset)
        #expect(ends == ends.sorted())
        #expect(structure.endOfImage == jpeg.count)
        #expect(ends.last == jpeg.count - 2)
    }

    @Test("a truncated file has no end-of-image; garbage between segments is skipped and counted, like libjpeg")
    func damaged() throws {
        let jpeg = try TestImages.gradientJPEG(width: 200, height: 100)
        let truncated = try JPEGStructure(parsing: jpeg.prefix(jpeg.count / 2))
        #expect(truncated.endOfImage == nil)
        #expect { try JPEGStructure(parsing: Array("GIF89a".utf8)) } throws: { "\($0)".contains("no SOI") }
        var broken = jpeg
        broken.insert(contentsOf: [0x12, 0x34, 0x56], at: 2)
        let skipped = try JPEGStructure(parsing: broken)
        #expect(skipped.extraneousBytes == 3)
        #expect(skipped.scans.count == 1 && skipped.endOfImage == broken.count)
        #expect { try JPEGStructure(parsing: [0xFF, 0xD8, 0xFF, 0xC0, 0x00]) } throws: { "\($0)".contains("truncated") }

    }

    @Test("a scan limit stops the walk of a file with too many scans")
    func scanLimit() throws {
        let image = try TestImages.gradient(width: 64, height: 64)
        let jpeg = try image.jpegEncoded(
            JPEGEncoding(quality: 85, fullChroma: false, scans: ScanScript.recommendedColor.scans))
        #expect(throws: JPEGStructure.ParseError.self) { try JPEGStructure(parsing: jpeg, scanLimit: 4) }
        #expect(try JPEGStructure(parsing: jpeg, scanLimit: 5).scans.count == 5)
    }
}
