/// Writes JSON text exactly as Foundation's `JSONEncoder` lays it out with `.sortedKeys` and
/// `.withoutEscapingSlashes`, compact or with `.prettyPrinted` (two spaces a level, `" : "`
/// after a key, an empty container as an opening line, a blank line and its closing), for the
/// manifest's and the index's entries, which a large catalogue writes by the million: the
/// encoder's containers cost several times the text.
///
/// The caller hands over each object's members in sorted key order (`sortedKeys`); keys
/// sort by their bytes, which is `JSONEncoder`'s order for ASCII keys (`isPlain`): callers
/// with other keys use `JSONEncoder` itself.
struct JSONTextWriter {
    private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    private var depth: Int
    /// True until the open container's first member or element.
    private var first = true

    /// A writer whose text starts `depth` levels deep (pretty-printed lines are indented by
    /// that many levels more).
    init(pretty: Bool, depth: Int = 0, capacity: Int = 1024) {
        self.pretty = pretty
        self.depth = depth
        bytes.reserveCapacity(capacity)
    }

    /// True when every key is ASCII, whose order by bytes is `JSONEncoder`'s.
    static func isPlain(_ keys: some Sequence<String>) -> Bool {
        keys.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
    }

    /// True when every variant's name in `variants` is plain, and every format's of each.
    static func isPlain<Variant, Format>(
        variants: [String: Variant], formats: (Variant) -> [String: Format]?
    ) -> Bool {
        isPlain(variants.keys) && variants.values.allSatisfy { isPlain((formats($0) ?? [:]).keys) }
    }

    /// Keys in the order `sortedKeys` writes them (plain keys only).
    static func sorted(_ keys: some Sequence<String>) -> [String] {
        keys.sorted { $0.utf8Precedes($1) }
    }

    mutating func object(_ members: (inout JSONTextWriter) -> Void) {
        container(open: 0x7B, close: 0x7D, members)
    }

    mutating func array(_ elements: (inout JSONTextWriter) -> Void) {
        container(open: 0x5B, close: 0x5D, elements)
    }

    /// An object of `values` by key, members in sorted key order, each written by `write`.
    mutating func object<Value>(sorting values: [String: Value], _ write: (Value, inout JSONTextWriter) -> Void) {
        object { json in
            for key in Self.sorted(values.keys) {
                json.separate()
                json.key(key)
                write(values[key]!, &json)
            }
        }
    }

    /// A member of the open object: the separator, the key, then its value from `value`. The
    /// key is one of the model's names, plain ASCII with nothing to escape, written as it is.
    mutating func member(_ key: StaticString, _ value: (inout JSONTextWriter) -> Void) {
        separate()
        bytes.append(0x22)
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(0x22)
        if pretty { bytes += Self.keySeparator } else { bytes.append(0x3A) }
        value(&self)
    }

    /// Text written as it is (the separator before an image's piece), which the caller knows
    /// to be sound JSON in its place.
    mutating func raw(_ text: [UInt8]) {
        bytes += text
    }

    /// A key and the separator after it, for a value that follows.
    mutating func key(_ key: String) {
        string(key)
        if pretty { bytes += Self.keySeparator } else { bytes.append(0x3A) }
    }

    /// An element of the open array, written by `value`.
    mutating func element(_ value: (inout JSONTextWriter) -> Void) {
        separate()
        value(&self)
    }

    mutating func string(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            // The runs between the bytes to escape are copied whole: most strings have none.
            var start = 0
            for index in utf8.indices where utf8[index] < 0x20 || utf8[index] == 0x22 || utf8[index] == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(utf8[index])
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(0x22)
    }

    /// A byte JSON strings cannot hold as it is, escaped as `JSONEncoder` escapes it.
    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case 0x22: bytes += [0x5C, 0x22]
        case 0x5C: bytes += [0x5C, 0x5C]
        case 0x08: bytes += [0x5C, UInt8(ascii: "b")]
        case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
        case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
        case 0x0C: bytes += [0x5C, UInt8(ascii: "f")]
        case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
        default: bytes += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]]
        }
    }

    mutating func integer(_ value: Int) {
        bytes += String(value).utf8
    }

    /// An array of integers.
    mutating func integers(_ values: [Int]) {
        array { json in for value in values { json.element { $0.integer(value) } } }
    }

    mutating func boolean(_ value: Bool) {
        bytes += value ? Self.trueText : Self.falseText
    }

    private static let hex = Array("0123456789abcdef".utf8)
    private static let keySeparator = Array(" : ".utf8)
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)
    /// Indentation for `newline()`, copied a slice at a time.
    private static let spaces = [UInt8](repeating: 0x20, count: 64)

    private mutating func separate() {
        if !first { bytes.append(0x2C) }
        first = false
        if pretty { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        var left = 2 * depth
        while left > 0 {
            let run = min(left, Self.spaces.count)
            bytes += Self.spaces[..<run]
            left -= run
        }
    }

    private mutating func container(open: UInt8, close: UInt8, _ body: (inout JSONTextWriter) -> Void) {
        let outer = first
        bytes.append(open)
        first = true
        depth += 1
        body(&self)
        depth -= 1
        if pretty {
            if first { bytes.append(0x0A) }
            newline()
        }
        bytes.append(close)
        first = outer
    }
}
