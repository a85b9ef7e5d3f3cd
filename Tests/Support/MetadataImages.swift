import LadderImaging

/// JPEGs carrying XMP and IPTC blocks as image editors write them, for `ladder check`'s tests.
extension TestImages {
    /// A JPEG with `xmp` (the XML of a packet) in an APP1 segment and `iptc` (an APP13
    /// payload, see `photoshopIPTC`) when given, and no EXIF.
    static func exportJPEG(
        width: Int = 600, height: Int = 400, xmp: String? = nil, iptc: [UInt8]? = nil
    ) throws -> [UInt8] {
        var blobs: [String: [UInt8]] = [:]
        if let xmp { blobs["xmp-data"] = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8) }
        if let iptc { blobs["iptc-data"] = iptc }
        return try gradient(width: width, height: height, seed: 5).withMetadata(blobs: blobs).encoded(as: ".jpg[Q=90]")
    }

    /// An APP13 payload as Photoshop writes it: "Photoshop 3.0", then 8BIM image resources:
    /// 0x0404 holding the IPTC-IIM datasets (the character set 1:90 and the record version 2:0
    /// first, as Photoshop always writes them, then `datasets`), and 0x0425, the digest.
    static func photoshopIPTC(_ datasets: [(record: UInt8, number: UInt8, value: String)] = []) -> [UInt8] {
        func dataSet(_ record: UInt8, _ number: UInt8, _ value: [UInt8]) -> [UInt8] {
            [0x1C, record, number, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0] + bigEndian(UInt32(data.count)) + data
                + (data.count % 2 == 1 ? [0] : [])
        }
        var iim = dataSet(1, 90, [0x1B, 0x25, 0x47]) + dataSet(2, 0, [0x00, 0x04])
        for (record, number, value) in datasets { iim += dataSet(record, number, Array(value.utf8)) }
        return Array("Photoshop 3.0\0".utf8) + resource(0x0404, iim)
            + resource(0x0425, [UInt8](repeating: 0xA5, count: 16))
    }

    /// An XMP packet as an editor writes it: one rdf:Description with what Photoshop writes
    /// about any export, plus `attributes` and `elements`; the usual namespaces are declared
    /// (the IPTC Extension under two prefixes, "Iptc4xmpExt" and "ext").
    static func xmpPacket(attributes: String = "", elements: String = "") -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 9.1-c001">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
            xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
            xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
            xmlns:ext="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
            xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:aux="http://ns.adobe.com/exif/1.0/aux/"
            xmp:CreatorTool="Adobe Photoshop 26.0 (Macintosh)" xmp:CreateDate="2026-01-02T10:00:00+01:00"
            photoshop:ColorMode="3" xmpMM:InstanceID="xmp.iid:0a1b2c3d" \(attributes)>
           <dc:format>image/jpeg</dc:format>
           \(elements)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    }
}
