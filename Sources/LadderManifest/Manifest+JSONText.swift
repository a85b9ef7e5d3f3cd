// The manifest's image entries and the index's files as `JSONTextWriter` writes them: the bytes
// `JSONEncoder` gives for them (`Manifest.jsonEncoder()`, `ManifestIndex.compactJSON`), members
// in sorted key order, optional members left out when nil, as `encodeIfPresent` leaves them.

extension Manifest.ImageEntry {
    /// True when every key this entry writes is plain (`JSONTextWriter.isPlain`).
    var hasPlainKeys: Bool { JSONTextWriter.isPlain(variants: variants, formats: \.formats) }

    /// Writes the entry as `ImageEntry.encode(to:)` encodes it.
    func write(to json: inout JSONTextWriter) {
        json.object { json in
            if let averageColor { json.member("averageColor") { $0.string(averageColor) } }
            if let bytes { json.member("bytes") { $0.integer(bytes) } }
            if let captured { json.member("captured") { $0.string(captured) } }
            if let format { json.member("format") { $0.string(format) } }
            if let gpsRemoved { json.member("gpsRemoved") { $0.boolean(gpsRemoved) } }
            if hasAlpha == true { json.member("hasAlpha") { $0.boolean(true) } }
            json.member("height") { $0.integer(height) }
            if let orientation { json.member("orientation") { $0.integer(orientation) } }
            if let placeholder { json.member("placeholder") { $0.string(placeholder) } }
            json.member("sources") { json in
                json.array { json in for source in sources { json.element { $0.string(source) } } }
            }
            json.member("variants") { $0.object(sorting: variants) { $0.write(to: &$1) } }
            json.member("width") { $0.integer(width) }
        }
    }
}

extension Manifest.VariantEntry {
    func write(to json: inout JSONTextWriter) {
        Self.write(
            to: &json, bytes: bytes, formats: formats, height: height, path: path, progressive: progressive,
            recipe: recipe, scanEnds: scanEnds, scans: scans, script: script, sha256: sha256, width: width)
    }

    /// A variant of the manifest, or of the index (without `recipe`, `scans` and `script`).
    static func write(
        to json: inout JSONTextWriter, bytes: Int, formats: [String: Manifest.FormatEntry]?, height: Int,
        path: String, progressive: Bool, recipe: String?, scanEnds: [Int]?, scans: Int?, script: String?,
        sha256: String, width: Int
    ) {
        json.object { json in
            json.member("bytes") { $0.integer(bytes) }
            if let formats { json.member("formats") { $0.object(sorting: formats) { $0.write(to: &$1) } } }
            json.member("height") { $0.integer(height) }
            json.member("path") { $0.string(path) }
            json.member("progressive") { $0.boolean(progressive) }
            if let recipe { json.member("recipe") { $0.string(recipe) } }
            if let scanEnds { json.member("scanEnds") { $0.integers(scanEnds) } }
            if let scans { json.member("scans") { $0.integer(scans) } }
            if let script { json.member("script") { $0.string(script) } }
            json.member("sha256") { $0.string(sha256) }
            json.member("width") { $0.integer(width) }
        }
    }
}

extension Manifest.FormatEntry {
    func write(to json: inout JSONTextWriter) {
        json.object { json in
            json.member("bytes") { $0.integer(bytes) }
            json.member("path") { $0.string(path) }
            json.member("sha256") { $0.string(sha256) }
        }
    }
}

extension ManifestIndex {
    /// The file's bytes when every key is plain; nil otherwise (`JSONEncoder` writes them).
    func plainText() -> [UInt8]? {
        guard JSONTextWriter.isPlain(images.keys),
            images.values.allSatisfy({ JSONTextWriter.isPlain(variants: $0.variants, formats: \.formats) })
        else { return nil }
        var json = JSONTextWriter(pretty: false, capacity: 1024 * (images.count + 1))
        json.object { json in
            json.member("images") { $0.object(sorting: images) { $0.write(to: &$1) } }
            json.member("version") { $0.integer(version) }
        }
        return json.bytes + [0x0A]
    }
}

extension ManifestIndex.Entry {
    func write(to json: inout JSONTextWriter) {
        json.object { json in
            if let averageColor { json.member("averageColor") { $0.string(averageColor) } }
            if let hasAlpha { json.member("hasAlpha") { $0.boolean(hasAlpha) } }
            json.member("height") { $0.integer(height) }
            if let placeholder { json.member("placeholder") { $0.string(placeholder) } }
            json.member("variants") { $0.object(sorting: variants) { $0.write(to: &$1) } }
            json.member("width") { $0.integer(width) }
        }
    }
}

extension ManifestIndex.Variant {
    func write(to json: inout JSONTextWriter) {
        Manifest.VariantEntry.write(
            to: &json, bytes: bytes, formats: formats, height: height, path: path, progressive: progressive,
            recipe: nil, scanEnds: scanEnds, scans: nil, script: nil, sha256: sha256, width: width)
    }
}
