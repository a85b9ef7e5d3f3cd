internal import CExif
import Foundation

/// A text tag that ladder can carry from a source's EXIF into its variants.
package enum ExifField: String, CaseIterable, Sendable, Codable {
    case artist
    case copyright
    case imageDescription
    case dateTimeOriginal
    case make
    case model

    var ifd: ExifIfd {
        switch self {
        case .dateTimeOriginal: EXIF_IFD_EXIF
        default: EXIF_IFD_0
        }
    }

    var tag: ExifTag {
        switch self {
        case .artist: EXIF_TAG_ARTIST
        case .copyright: EXIF_TAG_COPYRIGHT
        case .imageDescription: EXIF_TAG_IMAGE_DESCRIPTION
        case .dateTimeOriginal: EXIF_TAG_DATE_TIME_ORIGINAL
        case .make: EXIF_TAG_MAKE
        case .model: EXIF_TAG_MODEL
        }
    }
}

/// An EXIF tag that identifies a person or a device.
package enum ExifPersonalTag: UInt32, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case artist = 0x013B
    case makerNotes = 0x927C
    case ownerName = 0xA430
    case bodySerialNumber = 0xA431
    case lensSerialNumber = 0xA435

    var ifd: ExifIfd { self == .artist ? EXIF_IFD_0 : EXIF_IFD_EXIF }

    /// What the tag holds, in plain words.
    package var description: String {
        switch self {
        case .artist: "the photographer's name (Artist)"
        case .makerNotes: "maker notes (which often hold the camera's serial number)"
        case .ownerName: "the camera owner's name"
        case .bodySerialNumber: "the camera's serial number"
        case .lensSerialNumber: "the lens' serial number"
        }
    }

    /// The tag's name in the EXIF standard, as `ladder check` reports it: "EXIF Artist".
    package var label: String {
        switch self {
        case .artist: "EXIF Artist"
        case .makerNotes: "EXIF MakerNote"
        case .ownerName: "EXIF CameraOwnerName"
        case .bodySerialNumber: "EXIF BodySerialNumber"
        case .lensSerialNumber: "EXIF LensSerialNumber"
        }
    }
}

/// What a source's EXIF block says that matters to ladder, read with libexif.
package struct ExifMetadata: Sendable, Equatable {
    /// The Orientation tag (1...8) when present and valid.
    package var orientation: Int?
    /// True when the GPS directory holds at least one entry.
    package var hasGPS: Bool
    /// True when the block carries an embedded thumbnail image.
    package var hasThumbnail: Bool
    /// The text tags found, untouched (EXIF dates read "YYYY:MM:DD HH:MM:SS").
    package var fields: [ExifField: String]
    /// OffsetTimeOriginal ("+02:00") when present.
    package var offsetTimeOriginal: String?
    /// Tags that identify a person or a device, besides GPS, in tag order.
    package var personalTags: [ExifPersonalTag]
    /// Where the photo was taken, when the GPS tags hold a position (not a void one, and not
    /// 0° 0°, which cameras write when they have no fix).
    package var gpsPosition: GPSPosition?

    package init(
        orientation: Int? = nil, hasGPS: Bool = false, hasThumbnail: Bool = false,
        fields: [ExifField: String] = [:], offsetTimeOriginal: String? = nil, personalTags: [ExifPersonalTag] = [],
        gpsPosition: GPSPosition? = nil
    ) {
        self.gpsPosition = gpsPosition
        self.orientation = orientation
        self.hasGPS = hasGPS
        self.hasThumbnail = hasThumbnail
        self.fields = fields
        self.offsetTimeOriginal = offsetTimeOriginal
        self.personalTags = personalTags
    }

    /// The capture time as ISO 8601 ("2012-09-29T16:11:25", with the offset when the camera
    /// recorded one), or nil when DateTimeOriginal is absent or malformed.
    package var captureDate: String? {
        guard let raw = fields[.dateTimeOriginal] else { return nil }
        let text = Array(raw.utf8)
        // "YYYY:MM:DD HH:MM:SS"
        guard text.count == 19, text[4] == UInt8(ascii: ":"), text[7] == UInt8(ascii: ":"),
            text[10] == UInt8(ascii: " "), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":")
        else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[$0]) }),
            !raw.hasPrefix("0000")
        else { return nil }
        let date = raw.prefix(10).replacingOccurrences(of: ":", with: "-")
        var iso = date + "T" + raw.suffix(8)
        if let offset = offsetTimeOriginal, offset.count == 6,
            offset.first == "+" || offset.first == "-"
        {
            iso += offset
        }
        return iso
    }

    /// Parses an EXIF block as libvips attaches it (an APP1 payload beginning "Exif\0\0", or a
    /// bare TIFF structure). Returns nil when libexif finds nothing in it.
    package init?(parsing block: [UInt8]) {
        guard !block.isEmpty, let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        // Read what is there, without libexif adding the entries the specification requires.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        var bytes = block
        if !bytes.starts(with: Array("Exif\0\0".utf8)) { bytes = Array("Exif\0\0".utf8) + bytes }
        bytes.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }

        let order = exif_data_get_byte_order(data)
        let contents = data.pointee.ifd
        func content(_ ifd: ExifIfd) -> UnsafeMutablePointer<ExifContent>? {
            switch ifd {
            case EXIF_IFD_0: contents.0
            case EXIF_IFD_1: contents.1
            case EXIF_IFD_EXIF: contents.2
            case EXIF_IFD_GPS: contents.3
            default: contents.4
            }
        }
        func text(_ ifd: ExifIfd, _ tag: ExifTag) -> String? {
            guard let entry = exif_content_get_entry(content(ifd), tag), entry.pointee.format == EXIF_FORMAT_ASCII,
                let bytes = entry.pointee.data, entry.pointee.size > 0
            else { return nil }
            // ASCII values end at the first NUL (Copyright holds "photographer\0editor\0").
            let buffer = UnsafeBufferPointer(start: bytes, count: Int(entry.pointee.size))
            let value = String(decoding: buffer.prefix(while: { $0 != 0 }), as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }

        var orientation: Int?
        if let entry = exif_content_get_entry(content(EXIF_IFD_0), EXIF_TAG_ORIENTATION),
            entry.pointee.format == EXIF_FORMAT_SHORT, entry.pointee.components >= 1,
            let value = entry.pointee.data
        {
            let raw = Int(exif_get_short(value, order))
            orientation = (1...8).contains(raw) ? raw : nil
        }
        var fields: [ExifField: String] = [:]
        for field in ExifField.allCases {
            fields[field] = text(field.ifd, field.tag)
        }
        let gpsCount = content(EXIF_IFD_GPS)?.pointee.count ?? 0
        let ifdCount = (0..<5).reduce(0) { sum, index in
            sum + Int(content(ExifIfd(rawValue: UInt32(index)))?.pointee.count ?? 0)
        }
        guard ifdCount > 0 || data.pointee.size > 0 else { return nil }
        let personal = ExifPersonalTag.allCases.filter { tag in
            guard let entry = exif_content_get_entry(content(tag.ifd), ExifTag(rawValue: tag.rawValue)) else {
                return false
            }
            // A text tag counts when it holds text; others (maker notes) when they hold bytes.
            guard entry.pointee.size > 0, let first = entry.pointee.data?.pointee else { return false }
            return entry.pointee.format != EXIF_FORMAT_ASCII || (first != 0 && first != UInt8(ascii: " "))

        }
        /// Degrees from a GPS coordinate (three rationals: degrees, minutes, seconds).
        func coordinate(_ tag: UInt32, reference: UInt32, negative: String) -> Double? {
            guard let entry = exif_content_get_entry(content(EXIF_IFD_GPS), ExifTag(rawValue: tag)),
                entry.pointee.format == EXIF_FORMAT_RATIONAL, entry.pointee.components == 3,
                entry.pointee.size >= 24, let bytes = entry.pointee.data
            else { return nil }
            var degrees = 0.0
            for (index, unit) in [1.0, 60.0, 3600.0].enumerated() {
                let value = exif_get_rational(bytes + index * 8, order)
                guard value.denominator != 0 else { return nil }
                degrees += Double(value.numerator) / Double(value.denominator) / unit
            }
            return text(EXIF_IFD_GPS, ExifTag(rawValue: reference)) == negative ? -degrees : degrees
        }
        var position: GPSPosition?
        if let latitude = coordinate(0x0002, reference: 0x0001, negative: "S"),
            let longitude = coordinate(0x0004, reference: 0x0003, negative: "W"),
            abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0
        {
            position = GPSPosition(latitude: latitude, longitude: longitude)
        }
        self.init(
            orientation: orientation, hasGPS: gpsCount > 0, hasThumbnail: data.pointee.size > 0,
            fields: fields, offsetTimeOriginal: text(EXIF_IFD_EXIF, ExifTag(rawValue: 0x9011)),
            personalTags: personal, gpsPosition: position)

    }

    /// A new EXIF block (an APP1 payload beginning "Exif\0\0") holding only `fields` from this
    /// metadata, or nil when none of them is present. Orientation is left out, which means
    /// upright; GPS and the thumbnail are never written.
    package func encodedBlock(keeping keep: Set<ExifField>) -> [UInt8]? {
        let kept = ExifField.allCases.filter { keep.contains($0) }.compactMap { field in
            fields[field].map { (field, $0) }
        }
        guard !kept.isEmpty, let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_set_byte_order(data, EXIF_BYTE_ORDER_INTEL)
        exif_data_set_data_type(data, EXIF_DATA_TYPE_COMPRESSED)
        let contents = data.pointee.ifd
        for (field, value) in kept {
            guard let entry = exif_entry_new() else { continue }
            let target = field.ifd == EXIF_IFD_EXIF ? contents.2 : contents.0
            let bytes = Array(value.utf8) + [0]
            guard let storage = malloc(bytes.count)?.assumingMemoryBound(to: UInt8.self) else {
                exif_entry_unref(entry)
                continue
            }
            storage.initialize(from: bytes, count: bytes.count)
            entry.pointee.tag = field.tag
            entry.pointee.format = EXIF_FORMAT_ASCII
            entry.pointee.components = UInt(bytes.count)
            entry.pointee.size = UInt32(bytes.count)
            entry.pointee.data = storage
            exif_content_add_entry(target, entry)
            exif_entry_unref(entry)
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt32 = 0
        exif_data_save_data(data, &output, &length)
        guard let output, length > 0 else { return nil }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}

/// A position on Earth, in degrees (north and east positive).
package struct GPSPosition: Sendable, Equatable, Codable, CustomStringConvertible {
    package var latitude: Double
    package var longitude: Double

    package init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// "47.6062° N, 122.3321° W".
    package var description: String {
        String(
            format: "%.4f° %@, %.4f° %@", abs(latitude), latitude < 0 ? "S" : "N", abs(longitude),
            longitude < 0 ? "W" : "E")
    }
}
