internal import CYajl
package import LadderManifest

/// Reads one image entry of a manifest (the JSON of a member of its `images`, as
/// `JSONMemberStream` hands it over) with yajl's tree parser, mapped straight into
/// `Manifest.ImageEntry`, which a verify or a merge of a large catalogue does once per image:
/// two thirds of the CPU of `JSONDecoder` (1.4 s against 2.1 s for verify's 30,000 entries, by
/// `perf record`), most of it yajl building its tree.
///
/// It reads what ladder writes, and gives what `JSONDecoder` gives for it; whatever it is not
/// sure of (a value of another type, a duplicate key, a number that is not a plain integer, a
/// `\u` escape) gives nil, and the caller decodes that entry with `JSONDecoder`, which tells
/// what is wrong as it always did. Unknown keys are skipped, as `JSONDecoder` skips them.
package enum ImageEntryParser {
    /// The entry, or nil when `JSONDecoder` must decide.
    package static func parse(_ json: [UInt8]) -> Manifest.ImageEntry? {
        // yajl's strings are C strings: an escaped NUL would cut one short, and a lone
        // surrogate is replaced where JSONDecoder refuses it. ladder writes no such escape.
        if hasUnicodeEscape(json) { return nil }
        var text = json
        text.append(0)
        let tree = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { yajl_tree_parse($0.baseAddress, nil, 0) }
        }
        guard let tree else { return nil }
        defer { yajl_tree_free(tree) }
        return imageEntry(Node(tree))
    }

    private static func hasUnicodeEscape(_ json: [UInt8]) -> Bool {
        var escaped = false
        for byte in json {
            if escaped && byte == UInt8(ascii: "u") { return true }
            escaped = !escaped && byte == UInt8(ascii: "\\")
        }
        return false
    }

    private static func imageEntry(_ node: Node) -> Manifest.ImageEntry? {
        guard let fields = node.fields(),
            let sources = fields["sources"]?.array(of: { $0.string }),
            let width = fields["width"]?.integer, let height = fields["height"]?.integer,
            let variants = fields["variants"]?.dictionary(of: variantEntry),
            let format = fields.optional("format", \.string), let bytes = fields.optional("bytes", \.integer),
            let orientation = fields.optional("orientation", \.integer),
            let captured = fields.optional("captured", \.string),
            let gpsRemoved = fields.optional("gpsRemoved", \.boolean),
            let placeholder = fields.optional("placeholder", \.string),
            let averageColor = fields.optional("averageColor", \.string),
            let hasAlpha = fields.optional("hasAlpha", \.boolean)
        else { return nil }
        return Manifest.ImageEntry(
            sources: sources, width: width, height: height, variants: variants, format: format, bytes: bytes,
            orientation: orientation, captured: captured, gpsRemoved: gpsRemoved, placeholder: placeholder,
            averageColor: averageColor,
            // As `ImageEntry.init(from:)`: absent means false where the placeholder was written.
            hasAlpha: hasAlpha ?? (placeholder == nil ? nil : false))
    }

    private static func variantEntry(_ node: Node) -> Manifest.VariantEntry? {
        guard let fields = node.fields(),
            let path = fields["path"]?.string, let width = fields["width"]?.integer,
            let height = fields["height"]?.integer, let bytes = fields["bytes"]?.integer,
            let sha256 = fields["sha256"]?.string, let progressive = fields["progressive"]?.boolean,
            let scans = fields["scans"]?.integer, let recipe = fields["recipe"]?.string,
            let script = fields.optional("script", \.string),
            let scanEnds = fields.optional("scanEnds", { $0.array(of: { $0.integer }) }),
            let formats = fields.optional("formats", { $0.dictionary(of: formatEntry) })
        else { return nil }
        return Manifest.VariantEntry(
            path: path, width: width, height: height, bytes: bytes, sha256: sha256, progressive: progressive,
            scans: scans, recipe: recipe, scanEnds: scanEnds, script: script, formats: formats)
    }

    private static func formatEntry(_ node: Node) -> Manifest.FormatEntry? {
        guard let fields = node.fields(), let path = fields["path"]?.string, let bytes = fields["bytes"]?.integer,
            let sha256 = fields["sha256"]?.string
        else { return nil }
        return Manifest.FormatEntry(path: path, bytes: bytes, sha256: sha256)
    }

    /// One value of yajl's tree.
    private struct Node {
        let value: yajl_val
        init(_ value: yajl_val) { self.value = value }

        var type: yajl_type { value.pointee.type }

        var string: String? {
            guard type == yajl_t_string, let text = value.pointee.u.string else { return nil }
            return String(cString: text)
        }

        /// A number written as an integer (digits, perhaps a minus sign) that fits an `Int`.
        var integer: Int? {
            guard type == yajl_t_number else { return nil }
            let number = value.pointee.u.number
            guard number.flags & UInt32(YAJL_NUMBER_INT_VALID) != 0, let text = number.r else { return nil }
            var position = text
            if position.pointee == CChar(UInt8(ascii: "-")) { position += 1 }
            guard position.pointee != 0 else { return nil }
            while position.pointee != 0 {
                guard (CChar(UInt8(ascii: "0"))...CChar(UInt8(ascii: "9"))).contains(position.pointee) else {
                    return nil
                }
                position += 1
            }
            return Int(exactly: number.i)
        }

        var boolean: Bool? {
            switch type {
            case yajl_t_true: true
            case yajl_t_false: false
            default: nil
            }
        }

        var isNull: Bool { type == yajl_t_null }

        /// An object's members; nil when this is not an object or a key repeats. An entry's
        /// objects have a dozen members at most: finding one by comparing its key's bytes costs
        /// less than a dictionary of Swift strings.
        func fields() -> Fields? {
            guard type == yajl_t_object else { return nil }
            let object = value.pointee.u.object
            for index in 0..<object.len {
                guard let key = object.keys[index], object.values[index] != nil else { return nil }
                for earlier in 0..<index where Fields.equal(key, object.keys[earlier]!) { return nil }
            }
            // An empty object's arrays are null.
            guard object.len > 0, let keys = object.keys, let values = object.values else {
                return Fields(keys: nil, values: nil, count: 0)
            }
            return Fields(keys: keys, values: values, count: object.len)
        }

        func array<Element>(of element: (Node) -> Element?) -> [Element]? {
            guard type == yajl_t_array else { return nil }
            let array = value.pointee.u.array
            var elements: [Element] = []
            elements.reserveCapacity(array.len)
            for index in 0..<array.len {
                guard let item = array.values[index], let read = element(Node(item)) else { return nil }
                elements.append(read)
            }
            return elements
        }

        func dictionary<Value>(of element: (Node) -> Value?) -> [String: Value]? {
            guard let fields = fields() else { return nil }
            var values: [String: Value] = [:]
            values.reserveCapacity(fields.count)
            for index in 0..<fields.count {
                guard let read = element(Node(fields.values![index]!)) else { return nil }
                values[String(cString: fields.keys![index]!)] = read
            }
            return values
        }
    }

    /// An object's members, as yajl holds them (keys checked to be distinct).
    private struct Fields {
        let keys: UnsafeMutablePointer<UnsafePointer<CChar>?>?
        let values: UnsafeMutablePointer<yajl_val?>?
        let count: Int

        subscript(key: StaticString) -> Node? {
            guard let keys, let values else { return nil }
            for index in 0..<count where Self.equal(keys[index]!, key) { return Node(values[index]!) }
            return nil
        }

        /// An optional member as `decodeIfPresent` reads it: `.some(nil)` when absent or null,
        /// nil when it has another type.
        func optional<Value>(_ key: StaticString, _ read: (Node) -> Value?) -> Value?? {
            guard let node = self[key], !node.isNull else { return .some(nil) }
            return read(node).map { .some($0) }
        }

        /// True when the C string `text` is `key`.
        static func equal(_ text: UnsafePointer<CChar>, _ key: StaticString) -> Bool {
            let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
            let expected = key.utf8Start
            for index in 0..<key.utf8CodeUnitCount where bytes[index] != expected[index] { return false }
            return bytes[key.utf8CodeUnitCount] == 0
        }

        /// True when two C strings are the same.
        static func equal(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Bool {
            var index = 0
            while a[index] == b[index] {
                if a[index] == 0 { return true }
                index += 1
            }
            return false
        }
    }
}
