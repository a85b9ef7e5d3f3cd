import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// Damage in a JPEG's entropy-coded data that libvips decodes through without a warning, and
/// libjpeg notices only at the end of the image.
@Suite("Strict JPEG decoding")
struct StrictJPEGTests {
    static let photo: [UInt8] = {
        TestImages.start()
        return try! TestImages.gradientJPEG(width: 900, height: 600, seed: 5, quality: 92)
    }()

    /// Bytes flipped in the middle of the file's entropy-coded data; markers stay as they are
    /// (no 0xFF is made, changed, or has the byte after it changed).
    static func flipped(_ jpeg: [UInt8], count: Int, at share: Double) -> [UInt8] {
        var damaged = jpeg
        let start = Int(Double(jpeg.count) * share)
        for index in start..<(start + count)
        where jpeg[index] != 0xFF && jpeg[index - 1] != 0xFF && jpeg[index] ^ 0x80 != 0xFF {
            damaged[index] ^= 0x80
        }
        return damaged
    }

    /// Garbage between the last block and the end-of-image marker.
    static func trailingGarbage(_ jpeg: [UInt8]) -> [UInt8] {
        var damaged = jpeg
        damaged.insert(contentsOf: (0..<300).map { UInt8(($0 * 7) % 250) }, at: jpeg.count - 2)
        return damaged
    }

    static let damaged: [(String, [UInt8])] = [
        ("flipped bytes mid-file", flipped(photo, count: 300, at: 0.5)),
        ("garbage before the end of image", trailingGarbage(photo)),
    ]

    /// libvips' own strict decode: what the build relied on alone.
    static func libvipsAccepts(_ bytes: [UInt8]) -> Bool {
        guard let header = try? ImageHeader(reading: bytes) else { return false }
        return
            (try? Image.decode(
                bytes, header: header, fitting: header.size, background: .white, strictness: .warning)) != nil
    }

    @Test("libvips decodes the damaged files without a warning; libjpeg, read to the end, warns")
    func premise() throws {
        #expect(Self.libvipsAccepts(Self.photo))
        #expect(try JPEGEntropyRead(reading: Self.photo, memoryLimit: 256 << 20).warnings == 0)
        for (name, bytes) in Self.damaged {
            #expect(Self.libvipsAccepts(bytes), "\(name): libvips alone lets it through")
            let read = try JPEGEntropyRead(reading: bytes, memoryLimit: 256 << 20)
            #expect(read.warnings > 0, "\(name)")
            #expect(read.scans == 1)
        }
    }

    @Test("under failOn warning the build refuses them with libjpeg's warning; the batch goes on")
    func refused() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(Self.photo, to: "photos/good.jpg")
        for (index, (_, bytes)) in Self.damaged.enumerated() { try folder.write(bytes, to: "photos/bad\(index).jpg") }
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 1)
        let reasons = Dictionary(uniqueKeysWithValues: report.failed.map { ($0.source, $0.reason) })
        for index in Self.damaged.indices {
            let reason = try #require(reasons["photos/bad\(index).jpg"], "\(Self.damaged[index].0)")
            #expect(reason.contains("damaged JPEG data"), "\(reason)")
            #expect(reason.contains("Corrupt JPEG data") || reason.contains("Premature end"), "\(reason)")
        }
    }

    /// The same picture as `photo` in files of several scans: progressive (the recommended
    /// 5-scan script), and sequential with one scan per component. For both libjpeg reads the
    /// whole file, to its end of image, before it gives the first row (jpeg_start_decompress).
    static let multiScanPhotos: [(String, [UInt8])] = {
        TestImages.start()
        let picture = try! TestImages.gradient(width: 900, height: 600, seed: 5)
        let sequential = (0..<3).map { JPEGScan(components: [$0], ss: 0, se: 63, ah: 0, al: 0) }
        return [
            ("progressive", ScanScript.recommendedColor.scans),
            ("sequential, a scan per component", sequential),
        ].map { name, scans in
            (name, try! picture.jpegEncoded(JPEGEncoding(quality: 92, fullChroma: false, scans: scans)))
        }
    }()

    /// `multiScanPhotos` damaged as `damaged` damages `photo`.
    static let damagedMultiScan: [(String, [UInt8])] = multiScanPhotos.flatMap { name, photo in
        [
            ("\(name), flipped bytes mid-file", flipped(photo, count: 300, at: 0.5)),
            ("\(name), garbage before the end of image", trailingGarbage(photo)),
        ]
    }

    @Test(
        "libvips lets damaged multi-scan files through too, though libjpeg warns while it decodes them",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func multiScanPremise() throws {
        for (name, photo) in Self.multiScanPhotos {
            #expect(try ExternalTools.djpegStructure(photo).scans.count > 1, "\(name)")
            #expect(Self.libvipsAccepts(photo), "\(name)")
        }
        for (name, bytes) in Self.damagedMultiScan {
            // The oracle: libjpeg itself, read to the end, warns.
            #expect(try JPEGEntropyRead(reading: bytes, memoryLimit: 256 << 20).warnings > 0, "\(name)")
            #expect(Self.libvipsAccepts(bytes), "\(name): libvips alone lets it through")
        }
    }

    @Test("under failOn warning the build refuses damaged multi-scan files with libjpeg's warning")
    func multiScanRefused() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        for (index, (_, photo)) in Self.multiScanPhotos.enumerated() {
            try folder.write(photo, to: "photos/good\(index).jpg")
        }
        for (index, (_, bytes)) in Self.damagedMultiScan.enumerated() {
            try folder.write(bytes, to: "photos/bad\(index).jpg")
        }
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        let report = try Pipelines.build(in: folder)
        #expect(report.built == Self.multiScanPhotos.count)
        let reasons = Dictionary(uniqueKeysWithValues: report.failed.map { ($0.source, $0.reason) })
        for index in Self.damagedMultiScan.indices {
            let reason = try #require(reasons["photos/bad\(index).jpg"], "\(Self.damagedMultiScan[index].0)")
            #expect(reason.contains("damaged JPEG data"), "\(reason)")
            #expect(reason.contains("Corrupt JPEG data") || reason.contains("Premature end"), "\(reason)")
        }
    }

    @Test("under failOn error the same files are built, as configured")
    func lenient() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        for (index, (_, bytes)) in Self.damaged.enumerated() { try folder.write(bytes, to: "photos/bad\(index).jpg") }
        try Pipelines.write(#"{"sources": ["photos"], "decoding": {"failOn": "error"}}"#, in: folder)
        #expect(try Pipelines.build(in: folder).built == Self.damaged.count)
    }
}
