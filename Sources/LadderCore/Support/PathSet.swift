/// A set of file paths relative to the output folder, as compact as the paths allow: a
/// content-addressed one (`xx/<sha1>…`, the folder the SHA1's first two digits, in lowercase
/// hex) is held as the SHA1's 20 bytes and the number of its tail (what follows the SHA1, shared
/// by every image's file of one variant and format), 24 bytes in all; any other path as its
/// string. A million images' variant files take about a tenth of what their strings would.
package struct PathSet: Sendable {
    /// A content-addressed path: its SHA1 in three words, and its tail's number in `tails`.
    private struct Addressed: Hashable {
        var high: UInt64
        var middle: UInt64
        var low: UInt32
        var tail: UInt32
    }

    private var addressed: Set<Addressed> = []
    private var tails: [String: UInt32] = [:]
    private var others: Set<String> = []

    package init() {}

    package init(_ paths: some Sequence<String>) {
        for path in paths { insert(path) }
    }

    package var count: Int { addressed.count + others.count }

    package mutating func insert(_ path: String) {
        guard let (sha1, tail) = Self.split(path) else {
            others.insert(path)
            return
        }
        let number: UInt32
        if let known = tails[tail] {
            number = known
        } else {
            number = UInt32(tails.count)
            tails[tail] = number
        }
        addressed.insert(Addressed(high: sha1.high, middle: sha1.middle, low: sha1.low, tail: number))
    }

    package mutating func formUnion(_ paths: some Sequence<String>) {
        for path in paths { insert(path) }
    }

    package mutating func formUnion(_ other: PathSet) {
        others.formUnion(other.others)
        guard !other.addressed.isEmpty else { return }
        // The other set's tail numbers, in this one's.
        var numbers = Array(repeating: UInt32(0), count: other.tails.count)
        for (tail, number) in other.tails {
            if let known = tails[tail] {
                numbers[Int(number)] = known
            } else {
                numbers[Int(number)] = UInt32(tails.count)
                tails[tail] = UInt32(tails.count)
            }
        }
        addressed.reserveCapacity(addressed.count + other.addressed.count)
        for var path in other.addressed {
            path.tail = numbers[Int(path.tail)]
            addressed.insert(path)
        }
    }

    package func contains(_ path: String) -> Bool {
        guard let (sha1, tail) = Self.split(path) else { return others.contains(path) }
        guard let number = tails[tail] else { return false }
        return addressed.contains(Addressed(high: sha1.high, middle: sha1.middle, low: sha1.low, tail: number))
    }

    /// A content-addressed path's SHA1 and tail; nil for any other path (uppercase hex too, so
    /// that a path is held one way only).
    private static func split(_ path: String) -> (sha1: (high: UInt64, middle: UInt64, low: UInt32), tail: String)? {
        var path = path
        return path.withUTF8 { bytes -> ((high: UInt64, middle: UInt64, low: UInt32), String)? in
            guard bytes.count > 43, bytes[2] == UInt8(ascii: "/"), bytes[0] == bytes[3], bytes[1] == bytes[4]
            else { return nil }
            var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
            for index in 0..<40 {
                let byte = bytes[3 + index]
                let digit: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
                default: return nil
                }
                switch index {
                case 0..<16: words.0 = words.0 << 4 | digit
                case 16..<32: words.1 = words.1 << 4 | digit
                default: words.2 = words.2 << 4 | digit
                }
            }
            let tail = String(decoding: UnsafeBufferPointer(rebasing: bytes[43...]), as: UTF8.self)
            return ((words.0, words.1, UInt32(words.2)), tail)
        }
    }
}
