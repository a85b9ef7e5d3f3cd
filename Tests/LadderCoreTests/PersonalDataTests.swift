import Foundation
import LadderCore
import LadderImaging
import Testing

/// Personal data in the originals: reported at info level, by field name, only when a field
/// that names a person, a place or the camera really holds something.
@Suite("Personal data in originals")
struct PersonalDataTests {
    /// The findings about one JPEG checked alone, with the default pipeline's variants (so a
    /// 600x400 picture is not upscaled... except into full, which the tests ignore).
    static func findings(_ bytes: [UInt8], strict: Bool = false) throws -> [Finding] {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(bytes, to: "photos/picture.jpg")
        try Pipelines.write(PreflightTests.pipeline, in: folder)
        let report = try Pipelines.check(in: folder, jobs: 1, strict: strict)
        return report.files.first { $0.path == "photos/picture.jpg" }?.findings ?? []
    }

    static func fields(_ findings: [Finding]) -> String {
        findings.filter { $0.kind == .personalMetadata }.map(\.message).joined()
    }

    @Test(
        "a clean export (XMP without people or places, IPTC with only its character set and version) is not mentioned")
    func cleanExport() throws {
        let bytes = try TestImages.exportJPEG(xmp: TestImages.xmpPacket(), iptc: TestImages.photoshopIPTC())
        // The blocks are really in the file, as the IPTC and XMP readers see them.
        let header = try ImageHeader(reading: bytes)
        #expect(header.iptc?.filledDataSets == [IPTCRecord.DataSet(1, 90), IPTCRecord.DataSet(2, 0)])
        #expect(header.xmp != nil)
        #expect(try Self.findings(bytes) == [])
    }

    @Test("GPS and names in EXIF are info that names the fields and never their values")
    func cameraEXIF() throws {
        let findings = try Self.findings(TestImages.cameraJPEG(width: 600, height: 400))
        #expect(Set(findings.map(\.kind)) == [.gps, .personalMetadata])
        #expect(findings.allSatisfy { $0.severity == .info } && !findings.isEmpty)
        let text = findings.map { $0.message + $0.fix }.joined()
        #expect(Self.fields(findings).contains("EXIF Artist") && Self.fields(findings).contains("EXIF Copyright"))
        for value in ["Ada Lovelace", "51.5", "0.1167", "Acme"] {
            #expect(!text.contains(value), "\(value) is a value, not a field name")
        }
    }

    @Test("--strict turns the info into warnings")
    func strict() throws {
        let findings = try Self.findings(TestImages.cameraJPEG(width: 600, height: 400), strict: true)
        #expect(!findings.isEmpty && findings.allSatisfy { $0.severity == .warning })
    }

    @Test(
        "IPTC datasets that name people or places are reported by name; empty ones and keywords are not",
        arguments: [
            ([(UInt8(2), UInt8(80), "Jane Doe")], "IPTC By-line"),
            ([(2, 90, "Lyon")], "IPTC City"),
            ([(2, 92, "Vieux Lyon")], "IPTC Sub-location"),
            ([(2, 101, "France")], "IPTC Country Name"),
            ([(2, 116, "© Jane Doe")], "IPTC Copyright Notice"),
            ([(2, 90, "   "), (2, 80, "")], nil),
            ([(2, 25, "Jane Doe"), (2, 25, "Lyon"), (2, 120, "A caption")], nil),
        ] as [([(UInt8, UInt8, String)], String?)])
    func iptc(_ datasets: [(UInt8, UInt8, String)], _ field: String?) throws {
        let iptc = TestImages.photoshopIPTC(datasets.map { (record: $0.0, number: $0.1, value: $0.2) })
        let findings = try Self.findings(TestImages.exportJPEG(iptc: iptc))
        if let field {
            #expect(findings.map(\.severity) == [.info])
            #expect(Self.fields(findings).contains(field), "\(findings)")
            for (_, _, value) in datasets { #expect(!Self.fields(findings).contains(value)) }
        } else {
            #expect(findings == [])
        }
    }

    @Test(
        "XMP properties that name people, places or the camera are reported by name, whatever their prefix",
        arguments: [
            ("", "<dc:creator><rdf:Seq><rdf:li>Jane Doe</rdf:li></rdf:Seq></dc:creator>", "XMP dc:creator"),
            (#"photoshop:City="Lyon""#, "", "XMP photoshop:City"),
            ("", "<photoshop:Country>France</photoshop:Country>", "XMP photoshop:Country"),
            (
                "",
                "<Iptc4xmpExt:PersonInImage><rdf:Bag><rdf:li>Jane Doe</rdf:li></rdf:Bag></Iptc4xmpExt:PersonInImage>",
                "XMP Iptc4xmpExt:PersonInImage"
            ),
            (
                "", #"<ext:LocationShown><rdf:Bag><rdf:li ext:City="Lyon"/></rdf:Bag></ext:LocationShown>"#,
                "XMP Iptc4xmpExt:LocationShown"
            ),
            (#"aux:SerialNumber="20412345""#, "", "XMP aux:SerialNumber"),
            (
                "",
                #"<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">© Jane Doe</rdf:li></rdf:Alt></dc:rights>"#,
                "XMP dc:rights"
            ),
            (
                #"xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/" xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#""#,
                #"<mwg-rs:Regions rdf:parseType="Resource"><mwg-rs:RegionList><rdf:Bag><rdf:li><rdf:Description mwg-rs:Name="Jane Doe" mwg-rs:Type="Face"/></rdf:li></rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>"#,
                "XMP mwg-rs:Name"
            ),
        ])
    func xmp(_ attributes: String, _ elements: String, _ field: String) throws {
        let packet = TestImages.xmpPacket(attributes: attributes, elements: elements)
        let findings = try Self.findings(TestImages.exportJPEG(xmp: packet))
        #expect(findings.map(\.severity) == [.info])
        #expect(Self.fields(findings).contains(field), "\(findings)")
        #expect(!Self.fields(findings).contains("Jane") && !Self.fields(findings).contains("Lyon"))
    }

    @Test(
        "XMP that names nobody says nothing: empty creators, unnamed face regions, plain keywords",
        arguments: [
            ("", "<dc:creator><rdf:Seq><rdf:li></rdf:li></rdf:Seq></dc:creator>"),
            (#"photoshop:City="  ""#, ""),
            ("", "<dc:subject><rdf:Bag><rdf:li>Jane Doe</rdf:li><rdf:li>Lyon</rdf:li></rdf:Bag></dc:subject>"),
            (
                #"xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/""#,
                #"<mwg-rs:Regions rdf:parseType="Resource"><mwg-rs:RegionList><rdf:Bag><rdf:li><rdf:Description mwg-rs:Type="Face"/></rdf:li></rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>"#
            ),
        ])
    func xmpWithoutNames(_ attributes: String, _ elements: String) throws {
        let packet = TestImages.xmpPacket(attributes: attributes, elements: elements)
        #expect(try Self.findings(TestImages.exportJPEG(xmp: packet)) == [])
    }

    @Test("a GPS position in XMP is info; 0° 0° is not a position")
    func xmpGPS() throws {
        let located = TestImages.xmpPacket(attributes: #"exif:GPSLatitude="45,45.6N" exif:GPSLongitude="4,50.5E""#)
        let findings = try Self.findings(TestImages.exportJPEG(xmp: located))
        #expect(findings.map(\.kind) == [.gps] && findings.map(\.severity) == [.info])
        let nowhere = TestImages.xmpPacket(attributes: #"exif:GPSLatitude="0,0.0N" exif:GPSLongitude="0,0.0E""#)
        #expect(try Self.findings(TestImages.exportJPEG(xmp: nowhere)) == [])
    }

    /// A JPEG with a FLIR thermal camera's APP1 segment: an FFF file whose record directory
    /// lists one GPS record (type 0x2B), big-endian header, little-endian record, as the FLIR
    /// ONE writes it; split over two segments, given in reverse order.
    static func thermalJPEG(valid: Bool, latitude: Double, longitude: Double) throws -> [UInt8] {
        func bigEndian(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
        }
        func littleEndian(_ value: Double) -> [UInt8] {
            (0..<8).map { UInt8((value.bitPattern >> UInt64($0 * 8)) & 0xFF) }
        }
        var fff =
            Array("FFF\0".utf8) + [UInt8](repeating: 0, count: 16) + bigEndian(100, 4) + bigEndian(64, 4)
            + bigEndian(1, 4)
        fff += [UInt8](repeating: 0, count: 64 - fff.count)
        fff +=
            bigEndian(0x2B, 2) + bigEndian(0, 2) + bigEndian(100, 4) + bigEndian(1, 4) + bigEndian(96, 4)
            + bigEndian(64, 4) + [UInt8](repeating: 0, count: 12)
        var record: [UInt8] = [
            valid ? 1 : 0, 0, 0, 0, 0, 0, 0, 0, UInt8(ascii: "N"), 0, UInt8(ascii: "W"), 0, 0, 0, 0, 0,
        ]
        record += littleEndian(latitude) + littleEndian(longitude)
        fff += record + [UInt8](repeating: 0, count: 64 - record.count)
        func segment(_ index: UInt8, _ data: ArraySlice<UInt8>) -> [UInt8] {
            let payload = Array("FLIR\0".utf8) + [1, index, 1] + data
            return [0xFF, 0xE1] + bigEndian(payload.count + 2, 2) + payload
        }
        let jpeg = try TestImages.gradientJPEG(width: 600, height: 400)
        let half = fff.count / 2
        return Array(jpeg[0..<2]) + segment(1, fff[half...]) + segment(0, fff[..<half]) + Array(jpeg[2...])
    }

    @Test("a thermal camera's GPS fix, in its own FLIR segments, is info; an invalid fix is not")
    func thermalCamera() throws {
        let located = try Self.findings(Self.thermalJPEG(valid: true, latitude: 34.07, longitude: 118.25))
        #expect(located.map(\.kind) == [.gps] && located.map(\.severity) == [.info])
        #expect(try Self.findings(Self.thermalJPEG(valid: false, latitude: 34.07, longitude: 118.25)) == [])
        #expect(try Self.findings(Self.thermalJPEG(valid: true, latitude: 0, longitude: 0)) == [])
    }

    @Test("damaged IPTC and XMP blocks are read as far as they go, and never stop the check")
    func damaged() throws {
        var iptc = TestImages.photoshopIPTC([(record: 2, number: 90, value: "Lyon")])
        iptc.removeLast(20)  // cuts into the city's dataset and the digest
        let broken = TestImages.xmpPacket(attributes: #"photoshop:City="Lyon""#).replacingOccurrences(
            of: "</x:xmpmeta>", with: "")
        let findings = try Self.findings(TestImages.exportJPEG(xmp: broken, iptc: iptc))
        #expect(findings.allSatisfy { $0.severity == .info })
        #expect(Self.fields(findings).contains("XMP photoshop:City"), "read up to the error")
    }
}
