import LadderManifest

/// The previous build's manifest in a form that reads faster than its JSON (docs/ARCHITECTURE.md,
/// "A manifest snapshot instead of a faster JSON parser"), kept in the state folder and used only while the manifest file still has the bytes it was made from.
///
/// A rebuild needs the previous manifest whole (its entries are reused for unchanged sources),
/// and decoding tens of megabytes of JSON would dominate a build where nothing changed. The
/// snapshot records the SHA1 of the manifest's bytes: a manifest edited, replaced or restored
/// by anyone since has another SHA1, and the JSON is read instead. A snapshot that cannot be
/// read costs only time.
///
/// The format is one record per line, fields separated by tabs, with `\\`, `\t` and `\n`
/// escaped in text and `\-` standing for an absent optional value:
///
///     ladder-manifest-snapshot 2 <sha1 of manifest.json>
///     version <n>
///     generator <ladder> <libvips> <libjpeg> <libexif>
///     image <sha1> <width> <height> <format> <bytes> <orientation> <captured> <gpsRemoved>
///     source <path>                    (belongs to the image above)
///     placeholder <placeholder> <averageColor> <hasAlpha>   (belongs to the image above)
///     variant <name> <path> <width> <height> <bytes> <sha256> <progressive> <scans> <recipe> <scanEnds> <script>
///                                      (scanEnds comma-separated; both absent in older snapshots)
///     format <variant> <format> <path> <bytes> <sha256>   (a format sibling of that variant)
///     failure <source path> <reason>
///     failure-sha1 <source path> <sha1>  (the SHA1 of a failed source's bytes)
///     shard <index> <count> <sources> <sourcesSHA1>   (partial manifests only)
///     recipe <variant> <fingerprint>                  (belongs to the shard above)
///     recipe-lines <fingerprint> <line>...            (what a fingerprint stands for)
struct ManifestSnapshot: Equatable {
    /// SHA1 of the manifest file's bytes that `manifest` was read from or written as.
    var manifestSHA1: String
    var manifest: Manifest

    static let header = "ladder-manifest-snapshot 2"

    // MARK: - Writing

    func serialized() -> [UInt8] {
        var out = RecordWriter()
        out.line(Self.header + " " + manifestSHA1)
        out.record(["version", String(manifest.version)])
        let generator = manifest.generator
        out.record(
            ["generator", generator.ladder, generator.libvips, generator.libjpeg], optionals: [generator.libexif])
        for sha1 in manifest.images.keys.sorted() { Self.append(sha1, manifest.images[sha1]!, to: &out) }
        for path in manifest.failures.keys.sorted() { out.record(["failure", path, manifest.failures[path]!]) }
        for path in (manifest.failureSHA1 ?? [:]).keys.sorted() {
            out.record(["failure-sha1", path, manifest.failureSHA1![path]!])
        }
        if let shard = manifest.shard {
            out.record([
                "shard", String(shard.index), String(shard.count), String(shard.sources), shard.sourcesSHA1,
            ])
            for name in shard.recipes.keys.sorted() { out.record(["recipe", name, shard.recipes[name]!]) }
        }
        for fingerprint in (manifest.recipes ?? [:]).keys.sorted() {
            out.record(["recipe-lines", fingerprint] + manifest.recipes![fingerprint]!)
        }
        return out.bytes
    }

    /// Writes one image's records.
    private static func append(_ sha1: String, _ entry: Manifest.ImageEntry, to out: inout RecordWriter) {
        out.record(
            ["image", sha1, String(entry.width), String(entry.height)],
            optionals: [
                entry.format, entry.bytes.map(String.init), entry.orientation.map(String.init), entry.captured,
                entry.gpsRemoved.map { $0 ? "1" : "0" },
            ])
        for source in entry.sources { out.record(["source", source]) }
        if entry.placeholder != nil || entry.averageColor != nil || entry.hasAlpha != nil {
            out.record(
                ["placeholder"],
                optionals: [entry.placeholder, entry.averageColor, entry.hasAlpha.map { $0 ? "1" : "0" }])
        }
        for name in entry.variants.keys.sorted() {
            let variant = entry.variants[name]!
            out.record(
                [
                    "variant", name, variant.path, String(variant.width), String(variant.height),
                    String(variant.bytes), variant.sha256, variant.progressive ? "1" : "0", String(variant.scans),
                    variant.recipe,
                ], optionals: [variant.scanEnds.map(ScanEnds.text), variant.script])
            for format in (variant.formats ?? [:]).keys.sorted() {
                let sibling = variant.formats![format]!
                out.record(["format", name, format, sibling.path, String(sibling.bytes), sibling.sha256])
            }
        }
    }

    /// The snapshot in the file `old` (of a manifest whose images' records are in SHA1 order),
    /// read a line at a time, for the manifest whose bytes have `manifestSHA1` and whose images
    /// differ by `changes` (an image by SHA1, nil for one removed), handed to `write` about a
    /// megabyte at a time, so that nothing holds the whole of either: the other images' records
    /// are copied as they are. False when `old` does not read as a snapshot, which may be found
    /// after some pieces were handed over (they are then not a snapshot either).
    static func spliced(
        _ old: Directory.OpenFile, manifestSHA1: String, changes: [String: Manifest.ImageEntry?],
        into write: (ArraySlice<UInt8>) throws(FileSystemError) -> Void
    ) throws(FileSystemError) -> Bool {
        let newline = UInt8(ascii: "\n")
        let firstLine = Array((header + " ").utf8)
        var out = RecordWriter()
        out.line(header + " " + manifestSHA1)
        let imagePrefix = Array("image\t".utf8)
        let belongs = ["source\t", "placeholder\t", "variant\t", "format\t"].map { Array($0.utf8) }
        var pending = changes.keys.sorted()[...]
        func insert(before sha1: String?) {
            while let next = pending.first, sha1.map({ next < $0 }) ?? true {
                pending.removeFirst()
                if let entry = changes[next]! { append(next, entry, to: &out) }
            }
        }
        var headerRead = false
        var readable = true
        var skipping = false
        var imagesSeen = false
        var imagesEnded = false
        // Line by line, each with its line feed: one missing means the file was cut short.
        try old.forEachLine { line, _ throws(FileSystemError) in
            guard line.last == newline else {
                readable = false
                return false
            }
            guard headerRead else {
                headerRead = line.starts(with: firstLine)
                readable = headerRead
                return headerRead
            }
            if line.starts(with: imagePrefix) {
                guard !imagesEnded, line.count - 1 > imagePrefix.count + 40 else {
                    readable = false
                    return false
                }
                imagesSeen = true
                let sha1 = String(decoding: line.dropFirst(imagePrefix.count).prefix(40), as: UTF8.self)
                insert(before: sha1)
                skipping = changes[sha1] != nil
                if skipping, pending.first == sha1 {
                    pending.removeFirst()
                    if let entry = changes[sha1]! { append(sha1, entry, to: &out) }
                }
            } else if imagesSeen, !imagesEnded, !belongs.contains(where: { line.starts(with: $0) }) {
                imagesEnded = true
                skipping = false
                insert(before: nil)
            }
            if !skipping { out.bytes.append(contentsOf: line) }
            if out.bytes.count >= 1 << 20 {
                try write(out.bytes[...])
                out.bytes.removeAll(keepingCapacity: true)
            }
            return true
        }
        guard readable, headerRead, imagesSeen else { return false }
        insert(before: nil)
        try write(out.bytes[...])
        return true
    }

    // MARK: - Reading

    /// Reads a serialized snapshot; nil when it is damaged in any way.
    init?(serialized bytes: [UInt8]) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        guard lines.last?.isEmpty == true else { return nil }  // cut short
        lines.removeLast()
        guard let first = lines.popFirst() else { return nil }
        let header = String(decoding: first, as: UTF8.self)
        guard header.hasPrefix(Self.header + " ") else { return nil }
        manifestSHA1 = String(header.dropFirst(Self.header.count + 1))
        guard Manifest.isSHA1(manifestSHA1) else { return nil }

        var version: Int?
        var generator: Manifest.Generator?
        var images: [String: Manifest.ImageEntry] = [:]
        var failures: [String: String] = [:]
        var failureSHA1: [String: String] = [:]
        var shard: Manifest.Shard?
        var recipes: [String: [String]] = [:]
        var current: (sha1: String, entry: Manifest.ImageEntry)?
        func finishImage() {
            if let current { images[current.sha1] = current.entry }
            current = nil
        }
        for line in lines {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard let kind = fields.first.map({ String(decoding: $0, as: UTF8.self) }) else { return nil }
            let values = fields.dropFirst().map(RecordField.init)
            switch (kind, values.count) {
            case ("version", 1):
                version = values[0].integer
            case ("generator", 4):
                guard let ladder = values[0].text, let libvips = values[1].text, let libjpeg = values[2].text,
                    let libexif = values[3].optionalText
                else { return nil }
                generator = Manifest.Generator(ladder: ladder, libvips: libvips, libjpeg: libjpeg, libexif: libexif)
            case ("image", 8):
                finishImage()
                guard let sha1 = values[0].text, let width = values[1].integer, let height = values[2].integer,
                    images[sha1] == nil, let format = values[3].optionalText, let size = values[4].optionalInteger,
                    let orientation = values[5].optionalInteger, let captured = values[6].optionalText,
                    let gps = values[7].optionalText
                else { return nil }
                current = (
                    sha1,
                    Manifest.ImageEntry(
                        sources: [], width: width, height: height, variants: [:], format: format, bytes: size,
                        orientation: orientation, captured: captured, gpsRemoved: gps.map { $0 == "1" })
                )
            case ("placeholder", 3):
                guard current != nil, let placeholder = values[0].optionalText, let color = values[1].optionalText,
                    let alpha = values[2].optionalText
                else { return nil }
                current!.entry.placeholder = placeholder
                current!.entry.averageColor = color
                current!.entry.hasAlpha = alpha.map { $0 == "1" }
            case ("source", 1):
                guard current != nil, let path = values[0].text else { return nil }
                current!.entry.sources.append(path)
            case ("variant", 9), ("variant", 10), ("variant", 11):
                guard current != nil, let name = values[0].text, let path = values[1].text,
                    let width = values[2].integer, let height = values[3].integer, let size = values[4].integer,
                    let sha256 = values[5].text, let scans = values[7].integer, let recipe = values[8].text,
                    let scanEnds = values.count >= 10 ? values[9].optionalText : .some(nil),
                    let script = values.count == 11 ? values[10].optionalText : .some(nil)
                else { return nil }
                let ends = scanEnds.map(ScanEnds.parse)
                guard ends != .some(nil) else { return nil }
                current!.entry.variants[name] = Manifest.VariantEntry(
                    path: path, width: width, height: height, bytes: size, sha256: sha256,
                    progressive: values[6].text == "1", scans: scans, recipe: recipe, scanEnds: ends ?? nil,
                    script: script)
            case ("format", 5):
                guard let name = values[0].text, current?.entry.variants[name] != nil, let format = values[1].text,
                    let path = values[2].text, let size = values[3].integer, let sha256 = values[4].text
                else { return nil }
                current!.entry.variants[name]!.formats = (current!.entry.variants[name]!.formats ?? [:]).merging(
                    [format: Manifest.FormatEntry(path: path, bytes: size, sha256: sha256)]
                ) { $1 }
            case ("failure", 2):
                guard let path = values[0].text, let reason = values[1].text else { return nil }
                failures[path] = reason
            case ("failure-sha1", 2):
                guard let path = values[0].text, let sha1 = values[1].text else { return nil }
                failureSHA1[path] = sha1
            case ("shard", 4):
                guard shard == nil, let index = values[0].integer, let count = values[1].integer,
                    let sources = values[2].integer, let sourcesSHA1 = values[3].text
                else { return nil }
                shard = Manifest.Shard(
                    index: index, count: count, sources: sources, sourcesSHA1: sourcesSHA1, recipes: [:])
            case ("recipe", 2):
                guard shard != nil, let name = values[0].text, let fingerprint = values[1].text else { return nil }
                shard!.recipes[name] = fingerprint
            case ("recipe-lines", 1...):
                let texts = values.compactMap(\.text)
                guard texts.count == values.count, recipes[texts[0]] == nil else { return nil }
                recipes[texts[0]] = Array(texts.dropFirst())
            default:
                return nil
            }
        }
        finishImage()
        guard let version, let generator else { return nil }
        manifest = Manifest(
            version: version, generator: generator, images: images, failures: failures,
            failureSHA1: failureSHA1.isEmpty ? nil : failureSHA1, shard: shard, recipes: recipes.isEmpty ? nil : recipes
        )

    }

    init(manifestSHA1: String, manifest: Manifest) {
        self.manifestSHA1 = manifestSHA1
        self.manifest = manifest
    }
}

// MARK: - Records

private struct RecordWriter {
    var bytes: [UInt8] = []

    mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Writes one record: the fields, then the optional ones (`\-` when absent).
    mutating func record(_ fields: [String], optionals: [String?] = []) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "\t")) }
            append(escaping: field)
        }
        for value in optionals {
            bytes.append(UInt8(ascii: "\t"))
            if let value { append(escaping: value) } else { bytes.append(contentsOf: RecordField.absent) }
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func append(escaping text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            default: bytes.append(byte)
            }
        }
    }
}

/// One field of a record, unescaped on demand.
private struct RecordField {
    static let absent: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "-")]

    let raw: ArraySlice<UInt8>

    init(_ raw: ArraySlice<UInt8>) { self.raw = raw }

    var isAbsent: Bool { raw.elementsEqual(Self.absent) }

    /// The text, or nil when the field is absent or its escapes are broken.
    var text: String? {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var escaped = false
        for byte in raw {
            if escaped {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "t"): bytes.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): bytes.append(UInt8(ascii: "\n"))
                default: return nil
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                bytes.append(byte)
            }
        }
        return escaped ? nil : String(decoding: bytes, as: UTF8.self)
    }

    var integer: Int? { text.flatMap { Int($0) } }

    /// `.some(nil)` for an absent value, nil for a damaged field.
    var optionalText: String?? { isAbsent ? .some(nil) : text.map { .some($0) } }

    var optionalInteger: Int?? {
        if isAbsent { return .some(nil) }
        guard let value = integer else { return nil }
        return .some(value)
    }
}
