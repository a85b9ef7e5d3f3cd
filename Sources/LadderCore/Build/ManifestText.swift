import Foundation
import LadderManifest

/// A manifest's bytes as `Manifest.jsonData()` lays them out, cut into its images' texts, so
/// that a build which changed a few images writes the others' bytes as they are and encodes
/// only what changed (`Manifest.JSONPieces` gives the same bytes for the whole).
///
/// Only a manifest this ladder wrote has that layout (the build record vouches for the file):
/// the images object opens with `  "images" : {` and a line feed, each image starts at four
/// spaces with its quoted SHA1 and ends at the first line that is four spaces and `}` (deeper
/// lines are indented further, and JSON strings hold no line feed). Anything else reads as nil.
struct ManifestText {
    let bytes: [UInt8]
    /// Each image's SHA1 and its text, from the key's opening quote to the entry's closing brace.
    let images: [(sha1: String, text: Range<Int>)]
    /// Where the images' texts start and end (after the opening brace's line feed, and before
    /// the line feed ahead of the closing brace).
    let content: Range<Int>

    init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        let key = Array("\n  \"images\" : {\n".utf8)
        guard let keyAt = Self.find(key, in: bytes, from: 0) else { return nil }
        let start = keyAt + key.count
        var images: [(sha1: String, text: Range<Int>)] = []
        var at = start
        let close = Array("\n  }".utf8)
        let entryEnd = Array("\n    }".utf8)
        let quoteOpen = Array("    \"".utf8)
        let afterKey = Array("\" : {".utf8)
        if Self.matches(Array("\n  }".utf8), in: bytes, at: at) {
            content = start..<start
            self.images = []
            return
        }
        while true {
            guard Self.matches(quoteOpen, in: bytes, at: at), at + 4 + 42 + afterKey.count <= bytes.count,
                Self.matches(afterKey, in: bytes, at: at + 4 + 41)
            else { return nil }
            let sha1 = String(decoding: bytes[(at + 5)..<(at + 45)], as: UTF8.self)
            guard Manifest.isSHA1(sha1), images.last.map({ $0.sha1 < sha1 }) ?? true,
                let end = Self.find(entryEnd, in: bytes, from: at)
            else { return nil }
            images.append((sha1, (at + 4)..<(end + entryEnd.count)))
            at = end + entryEnd.count
            if Self.matches(close, in: bytes, at: at) { break }
            guard Self.matches(Array(",\n".utf8), in: bytes, at: at) else { return nil }
            at += 2
        }
        self.images = images
        content = start..<at
    }

    /// The manifest without its images, read (its images are empty).
    func header() -> Manifest? {
        try? Manifest(jsonData: Data(bytes[..<content.lowerBound] + bytes[content.upperBound...]))
    }

    private static func matches(_ needle: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        index >= 0 && index + needle.count <= bytes.count && bytes[index..<(index + needle.count)].elementsEqual(needle)
    }

    /// The first place at or after `start` where `needle` (which starts with a line feed) is.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            var at = start
            while at < buffer.count {
                guard let found = memchr(base + at, Int32(needle[0]), buffer.count - at) else { return nil }
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if index + needle.count <= buffer.count,
                    UnsafeBufferPointer(rebasing: buffer[index..<(index + needle.count)]).elementsEqual(needle)
                {
                    return index
                }
                at = index + 1
            }
            return nil
        }
    }
}
