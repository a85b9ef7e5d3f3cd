/// The pixel size an encoded image declares, read from its first bytes without a decoder, for
/// scheduling: JPEG (frame header), PNG (IHDR), GIF (logical screen), WebP (VP8, VP8L, VP8X).
/// Nil for other formats or unreadable headers.
enum ImageDimensions {
    static func peek(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        func uint16BE(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }
        func uint16LE(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        func uint32BE(_ offset: Int) -> Int { uint16BE(offset) << 16 | uint16BE(offset + 2) }
        func uint24LE(_ offset: Int) -> Int { uint16LE(offset) | Int(bytes[offset + 2]) << 16 }
        guard bytes.count >= 30 else { return nil }
        if bytes[0] == 0xFF, bytes[1] == 0xD8 {
            // Walk the header segments up to the frame header.
            var position = 2
            while position + 9 < bytes.count, bytes[position] == 0xFF {
                let marker = bytes[position + 1]
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    return (uint16BE(position + 7), uint16BE(position + 5))
                }
                if marker == 0xDA || marker == 0xD9 { return nil }
                position += 2 + uint16BE(position + 2)
            }
            return nil
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return (uint32BE(16), uint32BE(20)) }
        if bytes.starts(with: Array("GIF8".utf8)) { return (uint16LE(6), uint16LE(8)) }
        if bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            switch String(decoding: bytes[12..<16], as: UTF8.self) {
            case "VP8X": return (uint24LE(24) + 1, uint24LE(27) + 1)
            case "VP8L":
                let bits = Int(bytes[21]) | Int(bytes[22]) << 8 | Int(bytes[23]) << 16 | Int(bytes[24]) << 24
                return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
            case "VP8 ": return (uint16LE(26) & 0x3FFF, uint16LE(28) & 0x3FFF)
            default: return nil
            }
        }
        return nil
    }
}
