import Foundation
import LadderImaging
import Testing

@Suite("Imaging")
struct ImagingTests {
    init() { TestImages.start() }

    @Test("checksums give the published known answers")
    func checksums() {
        #expect(Checksum.hex(.sha1, of: Array("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            Checksum.hex(.sha256, of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Checksum.hex(.sha1, of: []) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test("library versions are reported")
    func versions() {
        let versions = Imaging.versions
        #expect(versions.libvips.hasPrefix("8."))
        #expect(versions.libjpeg.split(separator: ".").count == 3)
        #expect(versions.libexif != "unknown")
    }

    @Test("libexif's version comes from the library alone: a runtime-only install gives the same fingerprints")
    func libexifVersionWithoutDevelopmentFiles() throws {
        let library = try #require(Imaging.libexifLibraryPath)
        // A runtime-only install: the same shared library, with no pkg-config file beside it.
        let folder = TemporaryDirectory()
        let copy = folder.path(URL(fileURLWithPath: library).lastPathComponent)
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library, toPath: copy)
        #expect(!FileManager.default.fileExists(atPath: folder.path("pkgconfig/libexif.pc")))
        #expect(Imaging.libexifVersion(libraryAt: copy) == Imaging.versions.libexif)
        var runtimeOnly = Imaging.versions
        runtimeOnly.libexif = Imaging.libexifVersion(libraryAt: copy)
        #expect(runtimeOnly == Imaging.versions, "so every recipe fingerprint is the same")
    }

    @Test("the header tells size, orientation, colors and EXIF without decoding pixels")
    func header() throws {
        let header = try ImageHeader(reading: TestImages.cameraJPEG(width: 320, height: 240, orientation: 6))
        #expect(header.format == "jpeg")
        #expect(header.storedSize == PixelSize(width: 320, height: 240))
        #expect(header.orientation == 6)
        #expect(header.size == PixelSize(width: 240, height: 320))
        #expect(!header.isGrayscale && !header.hasAlpha && header.bitsPerSample == 8)
        let exif = try #require(header.exif)
        #expect(exif.fields[.artist] == "Ada Lovelace")
        #expect(exif.captureDate == "2024-05-17T09:30:12")
        #expect(exif.hasGPS && exif.hasThumbnail)
    }

    @Test("capture dates become ISO 8601, malformed ones are dropped")
    func captureDates() {
        func date(_ raw: String, offset: String? = nil) -> String? {
            ExifMetadata(fields: [.dateTimeOriginal: raw], offsetTimeOriginal: offset).captureDate
        }
        #expect(date("2012:09:29 16:11:25") == "2012-09-29T16:11:25")
        #expect(date("2012:09:29 16:11:25", offset: "+02:00") == "2012-09-29T16:11:25+02:00")
        #expect(date("0000:00:00 00:00:00") == nil)
        #expect(date("2014:09:259 1") == nil)
    }

    @Test("a new EXIF block holds only the kept tags, and reads back")
    func exifBlock() throws {
        let metadata = ExifMetadata(
            orientation: 6, hasGPS: true, hasThumbnail: true,
            fields: [.artist: "Ada", .copyright: "(c) Ada", .model: "Camera"])
        let block = try #require(metadata.encodedBlock(keeping: [.artist, .copyright]))
        #expect(block.starts(with: Array("Exif\0\0".utf8)))
        let parsed = try #require(ExifMetadata(parsing: block))
        #expect(parsed.fields == [.artist: "Ada", .copyright: "(c) Ada"])
        #expect(parsed.orientation == nil && !parsed.hasGPS && !parsed.hasThumbnail)
        #expect(metadata.encodedBlock(keeping: [.make]) == nil, "nothing to keep, no block")
    }

    @Test("the encoder writes exactly the scan script it is given, or one baseline scan")
    func encoder() throws {
        let image = try TestImages.gradient(width: 120, height: 80)
        let script = [
            JPEGScan(components: [0, 1, 2], ss: 0, se: 0, ah: 0, al: 0),
            JPEGScan(components: [0], ss: 1, se: 63, ah: 0, al: 0),
            JPEGScan(components: [1], ss: 1, se: 63, ah: 0, al: 0),
            JPEGScan(components: [2], ss: 1, se: 63, ah: 0, al: 0),
        ]
        let progressive = try image.jpegEncoded(JPEGEncoding(quality: 80, fullChroma: true, scans: script))
        let decoded = try Image(decoding: progressive)
        #expect(decoded.size == image.size)
        let header = try ImageHeader(reading: progressive)
        #expect(header.isProgressiveJPEG)
        let baseline = try image.jpegEncoded(JPEGEncoding(quality: 80, fullChroma: false))
        #expect(try !ImageHeader(reading: baseline).isProgressiveJPEG)
    }

    @Test("the encoder reports libjpeg's reason for a script it refuses, instead of crashing")
    func encoderRefusal() throws {
        let image = try TestImages.gradient(width: 32, height: 32)
        let illegal = [JPEGScan(components: [0, 1], ss: 1, se: 63, ah: 0, al: 0)]
        #expect { try image.jpegEncoded(JPEGEncoding(quality: 80, fullChroma: false, scans: illegal)) } throws: {
            error in
            "\(error)".contains("encode JPEG")
        }
    }
}
