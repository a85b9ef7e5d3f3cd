import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What an XMP packet (libvips' `xmp-data`) says about people, places and devices, read with
/// Foundation's XML parser: which of the standard properties that name them hold a value,
/// never the values themselves.
///
/// A property counts when it holds text, as an attribute (`photoshop:City="…"`) or as an
/// element, directly or inside an array or a structure (`dc:creator` → `rdf:Seq` → `rdf:li`,
/// `Iptc4xmpExt:LocationShown` → `rdf:Bag` → `rdf:li` with `Iptc4xmpExt:City="…"`).
/// Properties are matched by namespace URI, so the prefix a writer chose does not matter.
package struct XMPPacket: Sendable, Equatable {
    /// The watched properties that hold a value, as "XMP photoshop:City" (with the usual
    /// prefix), in the order of `personalProperties`.
    package var personalFieldNames: [String]
    /// The position exif:GPSLatitude and exif:GPSLongitude hold, when both parse and it is not
    /// 0° 0° (which is what devices write when they have no fix).
    package var gpsPosition: GPSPosition?

    package init(personalFieldNames: [String] = [], gpsPosition: GPSPosition? = nil) {
        self.personalFieldNames = personalFieldNames
        self.gpsPosition = gpsPosition
    }

    /// A standard property that names a person, a place or a device.
    package struct Property: Sendable, Hashable {
        package var namespace: String
        /// The prefix writers use for the namespace, for messages.
        package var prefix: String
        package var name: String
        package var names: PersonalData

        package var label: String { "XMP \(prefix):\(name)" }
    }

    static let dc = "http://purl.org/dc/elements/1.1/"
    static let tiff = "http://ns.adobe.com/tiff/1.0/"
    static let exif = "http://ns.adobe.com/exif/1.0/"
    static let aux = "http://ns.adobe.com/exif/1.0/aux/"
    static let exifEX = "http://cipa.jp/exif/1.0/"
    static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    static let rights = "http://ns.adobe.com/xap/1.0/rights/"
    static let iptcCore = "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
    static let iptcExt = "http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
    static let plus = "http://ns.useplus.org/ldf/xmp/1.0/"
    static let regions = "http://www.metadataworkinggroup.com/schemas/regions/"
    static let microsoftRegion = "http://ns.microsoft.com/photo/1.2/t/Region#"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// The properties watched. Keywords (dc:subject) are left out: XMP does not say whether a
    /// keyword is a person, a place or a topic; the IPTC Extension's person and location
    /// properties and named face regions are the standard places for those.
    package static let personalProperties: [Property] = [
        Property(namespace: dc, prefix: "dc", name: "creator", names: .creator),
        Property(namespace: tiff, prefix: "tiff", name: "Artist", names: .creator),
        Property(namespace: plus, prefix: "plus", name: "ImageCreator", names: .creator),
        Property(namespace: photoshop, prefix: "photoshop", name: "CaptionWriter", names: .creator),
        Property(namespace: iptcCore, prefix: "Iptc4xmpCore", name: "CreatorContactInfo", names: .creator),
        Property(namespace: dc, prefix: "dc", name: "rights", names: .copyrightHolder),
        Property(namespace: tiff, prefix: "tiff", name: "Copyright", names: .copyrightHolder),
        Property(namespace: rights, prefix: "xmpRights", name: "Owner", names: .copyrightHolder),
        Property(namespace: plus, prefix: "plus", name: "CopyrightOwner", names: .copyrightHolder),
        Property(namespace: aux, prefix: "aux", name: "OwnerName", names: .cameraOwner),
        Property(namespace: exifEX, prefix: "exifEX", name: "CameraOwnerName", names: .cameraOwner),
        Property(namespace: aux, prefix: "aux", name: "SerialNumber", names: .serialNumber),
        Property(namespace: exifEX, prefix: "exifEX", name: "BodySerialNumber", names: .serialNumber),
        Property(namespace: aux, prefix: "aux", name: "LensSerialNumber", names: .serialNumber),
        Property(namespace: exifEX, prefix: "exifEX", name: "LensSerialNumber", names: .serialNumber),
        Property(namespace: photoshop, prefix: "photoshop", name: "City", names: .place),
        Property(namespace: photoshop, prefix: "photoshop", name: "State", names: .place),
        Property(namespace: photoshop, prefix: "photoshop", name: "Country", names: .place),
        Property(namespace: iptcCore, prefix: "Iptc4xmpCore", name: "Location", names: .place),
        Property(namespace: iptcCore, prefix: "Iptc4xmpCore", name: "CountryCode", names: .place),
        Property(namespace: iptcExt, prefix: "Iptc4xmpExt", name: "LocationShown", names: .place),
        Property(namespace: iptcExt, prefix: "Iptc4xmpExt", name: "LocationCreated", names: .place),
        Property(namespace: iptcExt, prefix: "Iptc4xmpExt", name: "PersonInImage", names: .personInImage),
        Property(namespace: iptcExt, prefix: "Iptc4xmpExt", name: "PersonInImageWDetails", names: .personInImage),
        // Face regions count only through their names (mwg-rs:Name, MPReg:PersonDisplayName):
        // an unnamed region says only that a face is there.
        Property(namespace: regions, prefix: "mwg-rs", name: "Name", names: .personInImage),
        Property(namespace: microsoftRegion, prefix: "MPReg", name: "PersonDisplayName", names: .personInImage),
    ]

    /// Parses a packet. A packet that is not well-formed XML is read up to its first error:
    /// what was found before it is kept.
    package init(parsing packet: [UInt8]) {
        // A JPEG's packet comes with its APP1 namespace ("http://ns.adobe.com/xap/1.0/\0")
        // before the XML, and may end in NULs.
        var bytes = packet.drop { $0 != UInt8(ascii: "<") }
        while let last = bytes.last, last == 0 { bytes.removeLast() }
        let reader = Reader()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        _ = parser.parse()
        self.init(
            personalFieldNames: Self.personalProperties.filter { reader.filled.contains($0) }.map(\.label),
            gpsPosition: Self.position(reader.gps["GPSLatitude"], reader.gps["GPSLongitude"]))
    }

    /// The position two XMP GPS coordinates ("47,36.6N" or "47,36,36N") hold, or nil when one
    /// does not parse, is out of range, or both are 0.
    static func position(_ latitude: String?, _ longitude: String?) -> GPSPosition? {
        func degrees(_ text: String?, negative: Character) -> Double? {
            guard var text = text?.trimmingCharacters(in: .whitespaces), let reference = text.last?.uppercased().first,
                "NSEW".contains(reference)
            else { return nil }
            text.removeLast()
            let parts = text.split(separator: ",").map { Double($0) }
            guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { return nil }
            let value = zip(parts.compactMap { $0 }, [1.0, 60.0, 3600.0]).reduce(0) { $0 + $1.0 / $1.1 }
            return reference == negative ? -value : value
        }
        guard let latitude = degrees(latitude, negative: "S"), let longitude = degrees(longitude, negative: "W"),
            abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0
        else { return nil }
        return GPSPosition(latitude: latitude, longitude: longitude)
    }

    /// The SAX delegate: tracks the watched property that encloses the current element.
    private final class Reader: NSObject, XMLParserDelegate {
        var filled: Set<Property> = []
        var gps: [String: String] = [:]
        /// Per open element: the watched property it opens, if any, and the GPS coordinate
        /// it opens, if any.
        private var open: [(property: Property?, gps: String?)] = []
        /// Prefixes in scope, innermost last (for attributes, which arrive by qualified name).
        private var prefixes: [(prefix: String, uri: String)] = []

        private var enclosing: Property? { open.last { $0.property != nil }?.property }

        private func property(namespace: String?, name: String) -> Property? {
            guard let namespace else { return nil }
            return XMPPacket.personalProperties.first { $0.namespace == namespace && $0.name == name }
        }

        private func namespace(ofQualified name: String) -> (uri: String?, local: String) {
            guard let colon = name.firstIndex(of: ":") else { return (nil, name) }
            let prefix = String(name[..<colon])
            let local = String(name[name.index(after: colon)...])
            return (prefixes.last { $0.prefix == prefix }?.uri, local)
        }

        private static func hasText(_ text: String) -> Bool {
            text.contains { !$0.isWhitespace && $0 != "\0" }
        }

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            prefixes.append((prefix, namespaceURI))
        }

        func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
            if let index = prefixes.lastIndex(where: { $0.prefix == prefix }) { prefixes.remove(at: index) }
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            let watched = property(namespace: namespaceURI, name: elementName)
            let coordinate =
                namespaceURI == XMPPacket.exif && ["GPSLatitude", "GPSLongitude"].contains(elementName)
                ? elementName : nil
            open.append((watched, coordinate))
            for (name, value) in attributes where Self.hasText(value) {
                let (uri, local) = namespace(ofQualified: name)
                if uri == XMPPacket.rdf || name.hasPrefix("xml:") || name.hasPrefix("xmlns") { continue }
                if let attribute = property(namespace: uri, name: local) {
                    filled.insert(attribute)
                } else if let enclosing {
                    // A field of a structure inside a watched property (LocationShown's City).
                    filled.insert(enclosing)
                }
                if uri == XMPPacket.exif, ["GPSLatitude", "GPSLongitude"].contains(local) {
                    gps[local] = value
                }
            }
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            _ = open.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard Self.hasText(string) else { return }
            if let enclosing { filled.insert(enclosing) }
            if let coordinate = open.last?.gps { gps[coordinate, default: ""] += string }
        }
    }
}
