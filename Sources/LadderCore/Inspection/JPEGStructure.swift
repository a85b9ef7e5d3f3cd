import Foundation
package import LadderImaging

/// The marker structure of a JPEG file, found by walking its segments by their lengths.
///
/// Searching for marker bytes would be wrong: an EXIF block can hold a whole thumbnail JPEG with
/// markers of its own, and entropy-coded data holds stuffed 0xFF bytes. The walk reads each
/// segment's length, skips its payload, and steps through entropy-coded data only where a scan
/// says it starts.
package struct JPEGStructure: Sendable, Equatable {
    /// One frame component: its identifier and sampling factors.
    package struct Component: Sendable, Equatable {
        package var id: Int
        package var horizontalSampling: Int
        package var verticalSampling: Int
    }

    /// One scan (SOS segment and its entropy-coded data).
    package struct Scan: Sendable, Equatable {
        /// Component indices into `components` (not identifiers), in the order the scan lists them.
        package var components: [Int]
        package var ss: Int
        package var se: Int
        package var ah: Int
        package var al: Int
        /// Offset of the SOS marker.
        package var markerOffset: Int
        /// Offset of the first byte of entropy-coded data, just past the SOS segment.
        package var dataOffset: Int
        /// Offset just past the last byte of the scan's entropy-coded data: once this many bytes
        /// have arrived, the scan can be shown.
        package var endOffset: Int

        /// The scan as a script entry.
        package var script: JPEGScan { JPEGScan(components: components, ss: ss, se: se, ah: ah, al: al) }
    }

    /// The start-of-frame marker: 0xC0 baseline, 0xC1 extended, 0xC2 progressive, ...
    package var frameMarker: UInt8
    package var width: Int
    package var height: Int
    package var components: [Component]
    package var scans: [Scan]
    /// An APPn segment (0xE0...0xEF).
    package struct ApplicationSegment: Sendable, Equatable {
        package var marker: UInt8
        /// Offset of the marker.
        package var offset: Int
        /// Bytes from the marker to the end of the payload.
        package var length: Int
        /// The payload's leading text, which names its kind: "JFIF", "Exif", "ICC_PROFILE"...
        package var signature: String
    }

    package var applicationSegments: [ApplicationSegment]
    /// Offset just past the EOI marker, or nil when the file ends without one.
    package var endOfImage: Int?
    /// Bytes found between segments where a marker should be; libjpeg skips them with a
    /// "Corrupt JPEG data: extraneous bytes" warning, and so does this walk.
    package var extraneousBytes: Int

    package var isProgressive: Bool {
        frameMarker == 0xC2 || frameMarker == 0xC6 || frameMarker == 0xCA || frameMarker == 0xCE
    }
    package var isArithmetic: Bool { (0xC9...0xCF).contains(frameMarker) }

    /// Why a file is not a well-formed JPEG.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package var offset: Int
        package var reason: String
        package var description: String { "\(reason) at byte \(offset)" }
    }

    /// The offset of the first 0xFF in `data[from..<end]`, or nil.
    static func nextMarkerByte(in data: [UInt8], from start: Int, before end: Int) -> Int? {
        guard start < end else { return nil }
        // memchr: the C library's search, many bytes at a time.
        return data.withUnsafeBytes { raw in
            memchr(raw.baseAddress! + start, 0xFF, end - start).map { UnsafeRawPointer($0) - raw.baseAddress! }
        }
    }

    /// Walks `bytes`. With `scanLimit`, stops with an error as soon as more scans than that are
    /// found, so a file with thousands of scans costs no more than reading its headers.
    package init(parsing bytes: some RandomAccessCollection<UInt8>, scanLimit: Int? = nil) throws(ParseError) {
        let data = Array(bytes)
        let count = data.count
        guard count >= 4, data[0] == 0xFF, data[1] == 0xD8 else {
            throw ParseError(offset: 0, reason: "not a JPEG file (no SOI marker)")
        }
        var frameMarker: UInt8?
        var width = 0
        var height = 0
        var components: [Component] = []
        var scans: [Scan] = []
        var applications: [ApplicationSegment] = []
        var endOfImage: Int?
        var extraneousBytes = 0
        var position = 2

        func uint16(at offset: Int) -> Int { Int(data[offset]) << 8 | Int(data[offset + 1]) }

        walk: while position < count {
            // Skip what is not a marker, as libjpeg does (counting it as damage).
            let skipFrom = position
            while position + 1 < count, data[position] != 0xFF || data[position + 1] == 0x00 {
                position += data[position] == 0xFF ? 2 : 1
            }
            extraneousBytes += position - skipFrom

            guard position + 1 < count else { break }
            // Any number of 0xFF fill bytes may precede a marker code.
            var codeOffset = position + 1
            while codeOffset < count, data[codeOffset] == 0xFF { codeOffset += 1 }
            guard codeOffset < count else { break }
            let marker = data[codeOffset]
            let markerOffset = codeOffset - 1
            position = codeOffset + 1
            switch marker {
            case 0xD9:
                endOfImage = position
                break walk
            case 0xD0...0xD7, 0x01:
                continue  // standalone markers carry no length
            default:
                break
            }
            guard position + 2 <= count else {
                throw ParseError(offset: markerOffset, reason: "truncated segment header")
            }
            let length = uint16(at: position)
            guard length >= 2 else {
                throw ParseError(offset: markerOffset, reason: "segment length \(length) is too small")
            }
            let payload = position + 2
            let payloadEnd = position + length
            guard payloadEnd <= count else {
                throw ParseError(offset: markerOffset, reason: "segment 0x\(hex(marker)) runs past the end of the file")
            }

            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard frameMarker == nil else {
                    throw ParseError(offset: markerOffset, reason: "second start-of-frame marker")
                }
                guard length >= 8 else {
                    throw ParseError(offset: markerOffset, reason: "short start-of-frame segment")
                }
                frameMarker = marker
                height = uint16(at: payload + 1)
                width = uint16(at: payload + 3)
                let componentCount = Int(data[payload + 5])
                guard length >= 8 + 3 * componentCount else {
                    throw ParseError(
                        offset: markerOffset, reason: "start-of-frame segment too short for its components")
                }
                for index in 0..<componentCount {
                    let entry = payload + 6 + 3 * index
                    components.append(
                        Component(
                            id: Int(data[entry]), horizontalSampling: Int(data[entry + 1] >> 4),
                            verticalSampling: Int(data[entry + 1] & 0x0F)))
                }
            case 0xDA:
                guard frameMarker != nil else {
                    throw ParseError(offset: markerOffset, reason: "scan before the start-of-frame marker")
                }
                // An empty segment may end the file: its component count is not there to read.
                let scanComponents = payload < payloadEnd ? Int(data[payload]) : 0
                guard scanComponents >= 1, scanComponents <= 4, length == 6 + 2 * scanComponents else {
                    throw ParseError(offset: markerOffset, reason: "malformed start-of-scan segment")
                }
                var indices: [Int] = []
                for index in 0..<scanComponents {
                    let id = Int(data[payload + 1 + 2 * index])
                    guard let componentIndex = components.firstIndex(where: { $0.id == id }) else {
                        throw ParseError(offset: markerOffset, reason: "scan names unknown component \(id)")
                    }
                    indices.append(componentIndex)
                }
                let tail = payload + 1 + 2 * scanComponents
                let approximation = data[tail + 2]
                // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00
                // nor a restart marker.
                var cursor = payloadEnd
                var scanEnd: Int?
                while cursor + 1 < count {
                    // Most of a file is entropy-coded data: go from one 0xFF to the next.
                    guard let mark = Self.nextMarkerByte(in: data, from: cursor, before: count - 1) else { break }
                    cursor = mark
                    let next = data[cursor + 1]
                    if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                        cursor += next == 0xFF ? 1 : 2
                        continue
                    }
                    scanEnd = cursor
                    break
                }
                scans.append(
                    Scan(
                        components: indices, ss: Int(data[tail]), se: Int(data[tail + 1]),
                        ah: Int(approximation >> 4), al: Int(approximation & 0x0F), markerOffset: markerOffset,
                        dataOffset: payloadEnd, endOffset: scanEnd ?? count))
                if let scanLimit, scans.count > scanLimit {
                    throw ParseError(offset: markerOffset, reason: "more than \(scanLimit) scans")
                }
                guard let scanEnd else { break walk }  // the file ends inside the scan
                position = scanEnd
                continue walk
            case 0xE0...0xEF:
                let signatureBytes = data[payload..<min(payloadEnd, payload + 12)].prefix { $0 != 0 }
                applications.append(
                    ApplicationSegment(
                        marker: marker, offset: markerOffset, length: length + 2,
                        signature: String(decoding: signatureBytes, as: UTF8.self)))
            default:
                break
            }
            position = payloadEnd
        }

        guard let frameMarker else {
            throw ParseError(offset: position, reason: "no start-of-frame marker")
        }
        self.frameMarker = frameMarker
        self.width = width
        self.height = height
        self.components = components
        self.scans = scans
        self.applicationSegments = applications
        self.endOfImage = endOfImage
        self.extraneousBytes = extraneousBytes

    }
}

private func hex(_ byte: UInt8) -> String {
    let text = String(byte, radix: 16, uppercase: true)
    return byte < 16 ? "0" + text : text
}
