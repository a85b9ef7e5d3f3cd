package import LadderManifest

/// Reads one image entry of a manifest (the JSON of a member of its `images`) with yajl's event
/// parser, each value put straight into `Manifest.ImageEntry` as it is read, which a verify or a
/// merge of a large catalogue does once per image. `JSONMemberStream` hands the same reader
/// (`ImageEntryReader`) the events of each image as it frames the manifest, so that the images
/// are parsed once (`readsImageEntries`); `parse` reads an entry's bytes alone, the same way.
/// yajl's tree parser, which this used before, made a C node and a copy of every string and
/// number first (strtod included), then walked them: the entries of a merge
/// of 3,000 images in 4 shards took 508 million instructions that way and 265 million this way
/// (`valgrind --tool=callgrind ladder merge`).
///
/// It reads what ladder writes, and gives what `JSONDecoder` gives for it; whatever it is not
/// sure of (a value of another type, a duplicate key, a number that is not a plain integer, a
/// `\u` escape) gives nil, and the caller decodes that entry with `JSONDecoder`, which tells
/// what is wrong as it always did. Unknown keys are skipped, as `JSONDecoder` skips them.
package enum ImageEntryParser {
    /// The entry, or nil when `JSONDecoder` must decide: the bytes read as the one image of a
    /// document of their own, by the stream that reads a manifest's images, so that an entry
    /// alone and an entry in a manifest are read by the same code.
    package static func parse(_ json: [UInt8]) -> Manifest.ImageEntry? {
        var document: [UInt8]? = Array(#"{"images": {"": "#.utf8) + json + Array("}}".utf8)
        let stream = JSONMemberStream(streaming: ["images"], readsImageEntries: true) {
            defer { document = nil }
            return document
        }
        // Asked for two members, the stream reads to the document's end, which must be sound.
        guard let members = try? stream.next(atLeast: 2), members.count == 1 else { return nil }
        return members[0].entry
    }

    /// True when `bytes` hold a `\u` escape, which can make an escaped NUL or a lone surrogate
    /// that yajl replaces where JSONDecoder refuses it. ladder writes no such escape.
    static func hasUnicodeEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var escaped = false
        for byte in bytes {
            if escaped && byte == UInt8(ascii: "u") { return true }
            escaped = !escaped && byte == UInt8(ascii: "\\")
        }
        return false
    }
}

/// The state of one entry's read: the objects and arrays open, and the members read so far in
/// each. Each yajl event is checked against where it comes; anything else is refused (`0`),
/// and the entry is left to `JSONDecoder`. `JSONMemberStream` hands it the events of each image
/// in the same pass that frames the manifest (`readsImageEntries`).
struct ImageEntryReader {
    /// A scalar value as yajl hands it over.
    enum Scalar {
        case null
        case boolean(Bool)
        case number(UnsafeBufferPointer<UInt8>)
        case string(UnsafeBufferPointer<UInt8>)
    }

    /// What is open, innermost last.
    enum Frame {
        case entry
        case sources
        case variants
        case variant
        case scanEnds
        case formats
        case format
        /// A value under a key this reader does not know, `depth` containers deep.
        case skipped(depth: Int)
    }

    /// The members of an object this reader knows: which keys it has met, for duplicates.
    struct Members {
        var seen: UInt32 = 0
        /// Keys it does not know, kept only to find a duplicate among them.
        var unknown: [[UInt8]] = []

        /// Notes `key` (its `field` number, or nil when unknown); false when met before.
        mutating func meet(_ field: Int?, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
            if let field {
                defer { seen |= 1 << field }
                return seen & (1 << field) == 0
            }
            let bytes = Array(key)
            if unknown.contains(bytes) { return false }
            unknown.append(bytes)
            return true
        }
    }

    // The fields, numbered in the order of these lists.
    static let entryFields: [StaticString] = [
        "sources", "width", "height", "variants", "format", "bytes", "orientation", "captured", "gpsRemoved",
        "placeholder", "averageColor", "hasAlpha",
    ]
    static let variantFields: [StaticString] = [
        "path", "width", "height", "bytes", "sha256", "progressive", "scans", "recipe", "script", "scanEnds",
        "formats",
    ]
    static let formatFields: [StaticString] = ["path", "bytes", "sha256"]

    var frames: [Frame] = []
    /// The field the next value is for (nil: unknown), in the innermost object.
    var field: Int?
    /// The key just read in `variants` or `formats`: a name.
    var name = ""

    var entryMembers = Members()
    var sources: [String]?
    var width: Int?
    var height: Int?
    var variants: [String: Manifest.VariantEntry]?
    var format: String?
    var bytes: Int?
    var orientation: Int?
    var captured: String?
    var gpsRemoved: Bool?
    var placeholder: String?
    var averageColor: String?
    var hasAlpha: Bool?

    var variantName = ""
    var variant = VariantFields()
    var formatName = ""
    var formatMembers = Members()
    var formatPath: String?
    var formatBytes: Int?
    var formatSHA256: String?

    struct VariantFields {
        var members = Members()
        var path: String?
        var width: Int?
        var height: Int?
        var bytes: Int?
        var sha256: String?
        var progressive: Bool?
        var scans: Int?
        var recipe: String?
        var script: String?
        var scanEnds: [Int]?
        var formats: [String: Manifest.FormatEntry]?
    }

    /// The entry read, once the top-level object has closed.
    var entry: Manifest.ImageEntry?

    // MARK: - Events

    mutating func key(_ key: UnsafeBufferPointer<UInt8>) -> Int32 {
        switch frames.last {
        case .entry:
            field = Self.number(of: key, in: Self.entryFields)
            return entryMembers.meet(field, key) ? 1 : 0
        case .variant:
            field = Self.number(of: key, in: Self.variantFields)
            return variant.members.meet(field, key) ? 1 : 0
        case .format:
            field = Self.number(of: key, in: Self.formatFields)
            return formatMembers.meet(field, key) ? 1 : 0
        case .variants, .formats:
            name = String(decoding: key, as: UTF8.self)
            return 1
        case .skipped:
            return 1
        default:
            return 0
        }
    }

    mutating func scalar(_ value: Scalar) -> Int32 {
        switch frames.last {
        case .entry: return entryScalar(value) ? 1 : 0
        case .variant: return variantScalar(value) ? 1 : 0
        case .format: return formatScalar(value) ? 1 : 0
        case .sources:
            guard let text = Self.string(value) else { return 0 }
            sources?.append(text)
            return 1
        case .scanEnds:
            guard let number = Self.integer(value) else { return 0 }
            variant.scanEnds?.append(number)
            return 1
        case .skipped: return 1
        default: return 0
        }
    }

    mutating func open(isObject: Bool) -> Int32 {
        let opened: Frame?
        switch frames.last {
        case nil:
            opened = isObject ? .entry : nil
        case .skipped(let depth):
            frames[frames.count - 1] = .skipped(depth: depth + 1)
            return 1
        case .entry:
            switch field {
            case nil: opened = .skipped(depth: 1)
            case 0 where !isObject:
                sources = []
                opened = .sources
            case 3 where isObject:
                variants = [:]
                opened = .variants
            default: opened = nil
            }
        case .variants where isObject:
            guard variants?[name] == nil else { return 0 }
            variantName = name
            variant = VariantFields()
            opened = .variant
        case .variant:
            switch field {
            case nil: opened = .skipped(depth: 1)
            case 9 where !isObject:
                variant.scanEnds = []
                opened = .scanEnds
            case 10 where isObject:
                variant.formats = [:]
                opened = .formats
            default: opened = nil
            }
        case .formats where isObject:
            guard variant.formats?[name] == nil else { return 0 }
            formatName = name
            (formatMembers, formatPath, formatBytes, formatSHA256) = (Members(), nil, nil, nil)
            opened = .format
        case .format:
            opened = field == nil ? .skipped(depth: 1) : nil
        default:
            opened = nil
        }
        guard let opened else { return 0 }
        frames.append(opened)
        return 1
    }

    mutating func close() -> Int32 {
        guard let closed = frames.popLast() else { return 0 }
        switch closed {
        case .skipped(let depth):
            if depth > 1 { frames.append(.skipped(depth: depth - 1)) }
        case .entry:
            guard let entry = finishedEntry() else { return 0 }
            self.entry = entry
        case .variant:
            guard let finished = finishedVariant() else { return 0 }
            variants?[variantName] = finished
        case .format:
            guard let formatPath, let formatBytes, let formatSHA256 else { return 0 }
            variant.formats?[formatName] = Manifest.FormatEntry(
                path: formatPath, bytes: formatBytes, sha256: formatSHA256)
        case .sources, .variants, .scanEnds, .formats:
            break
        }
        // The field a container was for is read; the next key names the next.
        return 1
    }

    // MARK: - Values

    private mutating func entryScalar(_ value: Scalar) -> Bool {
        guard let field else { return true }
        // Optional members may be null; required ones may not.
        if case .null = value { return field >= 4 }
        switch field {
        case 1: return Self.set(&width, Self.integer(value))
        case 2: return Self.set(&height, Self.integer(value))
        case 4: return Self.set(&format, Self.string(value))
        case 5: return Self.set(&bytes, Self.integer(value))
        case 6: return Self.set(&orientation, Self.integer(value))
        case 7: return Self.set(&captured, Self.string(value))
        case 8: return Self.set(&gpsRemoved, Self.boolean(value))
        case 9: return Self.set(&placeholder, Self.string(value))
        case 10: return Self.set(&averageColor, Self.string(value))
        case 11: return Self.set(&hasAlpha, Self.boolean(value))
        default:
            // sources and variants are containers.
            return false
        }
    }

    private mutating func variantScalar(_ value: Scalar) -> Bool {
        guard let field else { return true }
        // script, scanEnds and formats may be null.
        if case .null = value { return field >= 8 }
        switch field {
        case 0: return Self.set(&variant.path, Self.string(value))
        case 1: return Self.set(&variant.width, Self.integer(value))
        case 2: return Self.set(&variant.height, Self.integer(value))
        case 3: return Self.set(&variant.bytes, Self.integer(value))
        case 4: return Self.set(&variant.sha256, Self.string(value))
        case 5: return Self.set(&variant.progressive, Self.boolean(value))
        case 6: return Self.set(&variant.scans, Self.integer(value))
        case 7: return Self.set(&variant.recipe, Self.string(value))
        case 8: return Self.set(&variant.script, Self.string(value))
        default:
            // scanEnds and formats are containers.
            return false
        }
    }

    private mutating func formatScalar(_ value: Scalar) -> Bool {
        guard let field else { return true }
        switch field {
        case 0: return Self.set(&formatPath, Self.string(value))
        case 1: return Self.set(&formatBytes, Self.integer(value))
        default: return Self.set(&formatSHA256, Self.string(value))
        }
    }

    private func finishedEntry() -> Manifest.ImageEntry? {
        guard let sources, let width, let height, let variants else { return nil }
        return Manifest.ImageEntry(
            sources: sources, width: width, height: height, variants: variants, format: format, bytes: bytes,
            orientation: orientation, captured: captured, gpsRemoved: gpsRemoved, placeholder: placeholder,
            averageColor: averageColor,
            // As `ImageEntry.init(from:)`: absent means false where the placeholder was written.
            hasAlpha: hasAlpha ?? (placeholder == nil ? nil : false))
    }

    private func finishedVariant() -> Manifest.VariantEntry? {
        let read = variant
        guard let path = read.path, let width = read.width, let height = read.height, let bytes = read.bytes,
            let sha256 = read.sha256, let progressive = read.progressive, let scans = read.scans,
            let recipe = read.recipe
        else { return nil }
        return Manifest.VariantEntry(
            path: path, width: width, height: height, bytes: bytes, sha256: sha256, progressive: progressive,
            scans: scans, recipe: recipe, scanEnds: read.scanEnds, script: read.script, formats: read.formats)
    }

    // MARK: - Scalars

    /// Puts `read` in `target`; true when there was a value of the field's type to put.
    private static func set<Value>(_ target: inout Value?, _ read: Value?) -> Bool {
        target = read
        return read != nil
    }

    private static func string(_ value: Scalar) -> String? {
        guard case .string(let bytes) = value else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func boolean(_ value: Scalar) -> Bool? {
        guard case .boolean(let flag) = value else { return nil }
        return flag
    }

    /// A number written as an integer (digits, perhaps a minus sign) whose magnitude fits an
    /// `Int`: `-9223372036854775808` is left to JSONDecoder, as yajl's integer parse refuses it.
    private static func integer(_ value: Scalar) -> Int? {
        guard case .number(let text) = value, !text.isEmpty else { return nil }
        let negative = text[0] == UInt8(ascii: "-")
        let digits = text[(negative ? 1 : 0)...]
        guard !digits.isEmpty else { return nil }
        var magnitude = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times, over) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overAgain) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !over, !overAgain else { return nil }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// The number of `key` in `fields`, nil when it is none of them.
    private static func number(of key: UnsafeBufferPointer<UInt8>, in fields: [StaticString]) -> Int? {
        for (index, field) in fields.enumerated() where field.utf8CodeUnitCount == key.count {
            let name = field.utf8Start
            var position = 0
            while position < key.count && name[position] == key[position] { position += 1 }
            if position == key.count { return index }
        }
        return nil
    }
}
