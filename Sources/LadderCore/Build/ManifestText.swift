import Foundation
import LadderManifest

/// A manifest file as `Manifest.jsonData()` lays it out, read from the file a range at a time,
/// so that a build which changed a few images writes the others' bytes as they are and encodes
/// only what changed (`Manifest.JSONPieces` gives the same bytes for the whole), without holding
/// the manifest (a million images make 1.8 GB): one pass finds where each image's text starts,
/// and keeps that and the first eight hex digits of its SHA1 (12 bytes an image).
///
/// Only a manifest this ladder wrote has that layout (the build record vouches for the file):
/// the images object opens with the line `  "images" : {`, each image starts on a line of four
/// spaces and its quoted SHA1, `" : {`, and ends at the first line that is four spaces and `}`
/// (deeper lines are indented further, and JSON strings hold no line feed), followed by a comma
/// or by the line that closes the images. Anything else reads as nil.
final class ManifestText {
    /// The file, still open (its bytes are read again by `run` and `copy`).
    let file: Directory.OpenFile
    /// Where each image's text starts: the opening quote of its key.
    private let starts: [Int]
    /// The first eight hex digits of each image's SHA1, as a number.
    private let keys: [UInt32]
    /// Where the last image's text ends (before the line feed ahead of the closing brace).
    private let contentEnd: Int
    /// The bytes before the first image, and after the last.
    private let head: [UInt8]
    private let tail: [UInt8]

    var imageCount: Int { starts.count }

    /// Reads `file` once; nil when it is not laid out as this ladder writes manifests or has no
    /// image. Throws when the file cannot be read.
    init?(_ file: Directory.OpenFile) throws(FileSystemError) {
        enum Place { case head, betweenImages, inImage, closing, tail, broken }
        var place = Place.head
        var head: [UInt8] = []
        var tail: [UInt8] = []
        var starts: [Int] = []
        var keys: [UInt32] = []
        var contentEnd = 0
        var lastSHA1 = [UInt8](repeating: 0, count: 40)
        let imagesLine = Array("  \"images\" : {\n".utf8)
        let afterKey = Array("\" : {".utf8)
        try file.forEachLine { line, offset in
            switch place {
            case .head:
                head.append(contentsOf: line)
                if line.elementsEqual(imagesLine) { place = .betweenImages }
            case .betweenImages:
                // `    "<sha1>" : {`
                guard line.count >= 50, line[0] == 0x20, line[1] == 0x20, line[2] == 0x20, line[3] == 0x20,
                    line[4] == 0x22, UnsafeBufferPointer(rebasing: line[45..<50]).elementsEqual(afterKey),
                    let key = Self.key(UnsafeBufferPointer(rebasing: line[5..<45])),
                    starts.isEmpty || lastSHA1.lexicographicallyPrecedes(line[5..<45])
                else {
                    place = .broken
                    return false
                }
                lastSHA1.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: line[5..<45]) }
                starts.append(offset + 4)
                keys.append(key)
                place = .inImage
            case .inImage:
                // `    }` closes the image; a comma, or the line that closes the images, follows.
                guard line.count >= 6, line[0] == 0x20, line[1] == 0x20, line[2] == 0x20, line[3] == 0x20,
                    line[4] == 0x7D
                else { return true }
                if line.count == 7 && line[5] == 0x2C && line[6] == 0x0A {
                    place = .betweenImages
                } else if line.count == 6 && line[5] == 0x0A {
                    contentEnd = offset + 5
                    tail.append(0x0A)
                    place = .closing
                } else {
                    place = .broken
                    return false
                }
            case .closing:
                guard line.count >= 3, line[0] == 0x20, line[1] == 0x20, line[2] == 0x7D else {
                    place = .broken
                    return false
                }
                tail.append(contentsOf: line)
                place = .tail
            case .tail:
                tail.append(contentsOf: line)
            case .broken:
                return false
            }
            return true
        }
        guard place == .tail, !starts.isEmpty else { return nil }
        self.file = file
        self.starts = starts
        self.keys = keys
        self.contentEnd = contentEnd
        self.head = head
        self.tail = tail
    }

    /// The manifest without its images, read (its images are empty).
    func header() -> Manifest? {
        try? Manifest(jsonData: Data(head + tail))
    }

    /// The images whose SHA1 starts with `prefix` (at most eight hex digits): a run of
    /// consecutive images, since they are in SHA1 order, empty where the prefix has none.
    struct Run {
        /// Their places among the manifest's images.
        let indices: Range<Int>
        /// Each image's SHA1 and its text, from the key's opening quote to the entry's closing brace.
        let images: [(sha1: String, text: ArraySlice<UInt8>)]
    }

    /// The run of the images whose SHA1 starts with `prefix`, their texts read from the file;
    /// nil when `prefix` is not one of one to eight lowercase hex digits.
    func run(_ prefix: String) throws(FileSystemError) -> Run? {
        guard (1...8).contains(prefix.utf8.count), let value = UInt32(prefix, radix: 16),
            prefix.utf8.allSatisfy({ Self.hexValue($0) != nil })
        else { return nil }
        let shift = UInt64(32 - 4 * prefix.utf8.count)
        let low = lowerBound(UInt64(value) << shift)
        let high = lowerBound((UInt64(value) + 1) << shift)
        guard low < high else { return Run(indices: low..<low, images: []) }
        let bytes = try file.bytes(starts[low]..<textEnd(high - 1))
        var images: [(sha1: String, text: ArraySlice<UInt8>)] = []
        for index in low..<high {
            let text = (starts[index] - starts[low])..<(textEnd(index) - starts[low])
            images.append(
                (String(decoding: bytes[(text.lowerBound + 1)..<(text.lowerBound + 41)], as: UTF8.self), bytes[text]))
        }
        return Run(indices: low..<high, images: images)
    }

    /// Hands `write` the texts of the images at `indices`, with the separators between them as
    /// the file has them, a buffer at a time.
    func copy(
        _ indices: Range<Int>, into write: (UnsafeBufferPointer<UInt8>) throws(FileSystemError) -> Void
    ) throws(FileSystemError) {
        guard !indices.isEmpty else { return }
        try file.read(starts[indices.lowerBound]..<textEnd(indices.upperBound - 1), in: write)
    }

    /// Where the text of the image at `index` ends: `,\n    ` comes before the next one's key.
    private func textEnd(_ index: Int) -> Int {
        index + 1 < starts.count ? starts[index + 1] - 6 : contentEnd
    }

    /// The first image whose key is at least `key` (keys of 32 bits, widened so that the end
    /// of the last prefix can be told).
    private func lowerBound(_ key: UInt64) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if UInt64(keys[middle]) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first eight digits of a SHA1 of 40 lowercase hex digits, as a number; nil for
    /// anything else.
    private static func key(_ sha1: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var key: UInt32 = 0
        for (index, byte) in sha1.enumerated() {
            guard let value = hexValue(byte) else { return nil }
            if index < 8 { key = key << 4 | UInt32(value) }
        }
        return key
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
