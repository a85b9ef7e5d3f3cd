public import Foundation

extension Manifest {
    /// `jsonData()` in pieces, for a manifest written while its images are handed over one at
    /// a time in key order: `opening`, then `image(_:_:first:)` for each image, then `closing`
    /// give the bytes `jsonData()` gives for the whole manifest, without holding its images.
    /// The frame is the encoding of the manifest without images; each image is encoded alone
    /// by the same encoder and indented into place.
    public struct JSONPieces {
        /// Everything before the first image.
        public let opening: Data
        /// Everything after the last image.
        public let closing: Data
        /// The whole text of the manifest when it has no image.
        public let withoutImages: Data
        private let encoder = Manifest.jsonEncoder()
        private static let indent = [UInt8]("    ".utf8)

        /// The pieces of the manifest `header` with the images handed over later (the images
        /// of `header` itself are left out).
        public init(header: Manifest) {
            var top = header
            top.images = [:]
            withoutImages = top.jsonData()
            let text = [UInt8](withoutImages)
            // The top-level key `images`, and its empty object, which the images replace.
            let key = Array("\n  \"images\"".utf8)
            let keyStart = Self.find(key, in: text, from: 0) ?? text.count
            let open = (text[keyStart...].firstIndex(of: 0x7B) ?? text.count - 1) + 1
            let close = text[open...].firstIndex(of: 0x7D) ?? text.count
            opening = Data(text[..<open]) + Data([0x0A])
            closing = Data("\n  ".utf8) + Data(text[close...])
        }

        /// One image's text, preceded by the separator from the previous one unless it is the
        /// `first`.
        public func image(_ key: String, _ entry: ImageEntry, first: Bool) -> [UInt8] {
            var normalized = entry
            // Sorted already, as most are (one source): sorting would copy them.
            if zip(entry.sources, entry.sources.dropFirst()).contains(where: { $0 > $1 }) {
                normalized.sources.sort()
            }
            if normalized.hasPlainKeys {
                var json = JSONTextWriter(pretty: true, depth: 2, capacity: 4096)
                json.raw(first ? Self.firstSeparator : Self.separator)
                json.key(key)
                normalized.write(to: &json)
                return json.bytes
            }
            // Encoding plain structs of strings and integers cannot fail.
            let encoded = (try? encoder.encode(normalized)) ?? Data()
            var piece = [UInt8](first ? "    ".utf8 : ",\n    ".utf8)
            piece.reserveCapacity(encoded.count * 3 / 2 + 64)
            piece += (try? encoder.encode(key)) ?? Data()
            piece += " : ".utf8
            // Two levels deeper than alone: every line after the first, blank ones excepted.
            var afterNewline = false
            for byte in encoded {
                if afterNewline && byte != 0x0A { piece += Self.indent }
                piece.append(byte)
                afterNewline = byte == 0x0A
            }
            return piece
        }

        private static let firstSeparator = Array("    ".utf8)
        private static let separator = Array(",\n    ".utf8)

        private static func find(_ needle: [UInt8], in text: [UInt8], from start: Int) -> Int? {
            guard needle.count <= text.count else { return nil }
            var index = start
            while index + needle.count <= text.count {
                if text[index] == needle[0] && text[index..<index + needle.count].elementsEqual(needle) { return index }
                index += 1
            }
            return nil
        }
    }
}
