import LadderImaging

/// The GPS position a FLIR thermal camera stores in its own APP1 segments ("FLIR"), which
/// libvips and libexif do not read: the segments, joined in their order, hold an FFF file whose
/// record directory may list a GPS record (type 0x2B).
///
/// FFF layout: "FFF\0", a 16-byte creator, then 32-bit version (100...199, which tells the
/// byte order), record-directory offset and entry count. Each 32-byte directory entry holds the
/// record's type (16 bits) and, at byte 12, its offset and length. The GPS record starts with a
/// 32-bit "valid" flag (1), the version, the latitude and longitude references ("N", "W"...) at
/// bytes 8 and 10, and the latitude and longitude as doubles at bytes 16 and 24, in the
/// record's own byte order (told by the valid flag).
enum FLIRRecords {
    /// The position in a JPEG's FLIR segments, or nil when there is none (or no valid fix, or
    /// 0° 0°, or the segments are damaged).
    static func gpsPosition(inJPEG bytes: [UInt8]) -> GPSPosition? {
        guard bytes.starts(with: [0xFF, 0xD8]), let structure = try? JPEGStructure(parsing: bytes, scanLimit: 1000)
        else { return nil }
        // Payload: "FLIR\0", 0x01, this segment's index, the last index, then FFF data.
        var parts: [(index: UInt8, data: ArraySlice<UInt8>)] = []
        for segment in structure.applicationSegments where segment.marker == 0xE1 && segment.signature == "FLIR" {
            let start = segment.offset + 4
            let end = min(bytes.count, segment.offset + segment.length)
            guard end - start > 8 else { continue }
            parts.append((bytes[start + 6], bytes[(start + 8)..<end]))
        }
        guard !parts.isEmpty else { return nil }
        let fff = Array(parts.sorted { $0.index < $1.index }.flatMap(\.data))
        return gpsPosition(inFFF: fff)
    }

    static func gpsPosition(inFFF fff: [UInt8]) -> GPSPosition? {
        guard fff.count >= 64, fff.starts(with: Array("FFF\0".utf8)) else { return nil }
        func uint(_ at: Int, _ size: Int, bigEndian: Bool) -> Int? {
            guard at >= 0, at + size <= fff.count else { return nil }
            let slice = fff[at..<(at + size)]
            return (bigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        // The version is 100...199 in the header's byte order (big-endian in most files).
        let bigEndian = uint(20, 4, bigEndian: true).map { (100..<200).contains($0) } ?? false
        guard let directory = uint(24, 4, bigEndian: bigEndian), let count = uint(28, 4, bigEndian: bigEndian),
            count < 1000
        else { return nil }
        for entry in 0..<count {
            let at = directory + entry * 32
            guard let type = uint(at, 2, bigEndian: bigEndian), type == 0x2B,
                let offset = uint(at + 12, 4, bigEndian: bigEndian),
                let length = uint(at + 16, 4, bigEndian: bigEndian),
                length >= 32, offset + 32 <= fff.count
            else { continue }
            return gpsRecord(Array(fff[offset..<(offset + 32)]))
        }
        return nil
    }

    /// The position in a GPS record's first 32 bytes.
    static func gpsRecord(_ record: [UInt8]) -> GPSPosition? {
        // The valid flag is 1 in the record's byte order.
        let littleEndian: Bool
        switch Array(record[0..<4]) {
        case [1, 0, 0, 0]: littleEndian = true
        case [0, 0, 0, 1]: littleEndian = false
        default: return nil
        }
        func double(_ at: Int) -> Double {
            let slice = Array(record[at..<(at + 8)])
            let bits = (littleEndian ? slice.reversed() : slice).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Double(bitPattern: bits)
        }
        var latitude = double(16)
        var longitude = double(24)
        guard latitude.isFinite, longitude.isFinite else { return nil }
        if record[8] == UInt8(ascii: "S") { latitude = -abs(latitude) }
        if record[10] == UInt8(ascii: "W") { longitude = -abs(longitude) }
        guard abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        return GPSPosition(latitude: latitude, longitude: longitude)
    }
}
