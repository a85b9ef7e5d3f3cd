public import Foundation

/// One of the index files written beside the manifest, so that an app can resolve one image
/// without downloading the whole manifest: `index/ab.json` holds the images whose SHA1 starts
/// with `ab`, with only what a client needs (sizes, rungs, checksums, scan ends, placeholder).
///
/// How many hex digits name a file grows with the number of images, so that a file stays
/// small enough for a phone to fetch for one image (about `entriesPerFile` entries at most, on
/// average): 2 digits (256 files) up to 16,384 images, 3 digits (4,096 files) up to 262,144,
/// 4 digits (65,536 files) up to 4,194,304, and so on. `index/layout.json` says which
/// (`Layout`); a client reads it once, then one prefix file per prefix it needs.
///
/// Every prefix file is written on every build, empty ones included, so a missing file is
/// always an error, never "no such image". Their bytes follow from the manifest alone (compact
/// JSON, keys sorted, a final newline): two builds of the same inputs write the same index.
/// Variant paths are relative to the manifest's folder, as in the manifest.
public struct ManifestIndex: Sendable, Equatable, Codable {
    /// The index format version this code reads and writes.
    public static let currentVersion = 1
    /// The name of the manifest a client reads by default.
    public static let defaultManifestName = "manifest.json"

    /// The folder, beside the manifest, that holds the index files of the manifest named
    /// `manifestName`: `index` for `manifest.json`, `NAME.index` for `NAME.json` (and for any
    /// other name, that name followed by `.index`). Pipelines that share an output folder have
    /// manifests of different names, so each writes an index of its own.
    public static func folder(forManifestNamed manifestName: String = defaultManifestName) -> String {
        if manifestName == defaultManifestName { return "index" }
        let stem = manifestName.hasSuffix(".json") ? String(manifestName.dropLast(5)) : manifestName
        return stem + ".index"
    }
    /// The fewest leading hex digits of the SHA1 that name a file.
    public static let minimumPrefixLength = 2
    /// The most images a prefix file holds on average before the index moves to longer prefixes.
    public static let entriesPerFile = 64
    /// The name of the file, in the index folder, that says how the index is laid out.
    public static let layoutName = "layout.json"

    /// How many leading hex digits of the SHA1 name a file in the index of `imageCount` images:
    /// the fewest (at least `minimumPrefixLength`) that keep the mean entries per file at most
    /// `entriesPerFile`.
    public static func prefixLength(forImageCount imageCount: Int) -> Int {
        var length = minimumPrefixLength
        var files = 1 << (4 * length)
        while imageCount > files * entriesPerFile, length < 40 {
            length += 1
            files *= 16
        }
        return length
    }

    /// What `index/layout.json` holds: how many hex digits name a prefix file.
    public struct Layout: Sendable, Equatable, Codable {
        public var version: Int
        public var prefixLength: Int

        public init(version: Int = ManifestIndex.currentVersion, prefixLength: Int) {
            self.version = version
            self.prefixLength = prefixLength
        }

        /// The file's bytes: compact JSON, keys sorted, a final newline.
        public func jsonData() -> Data { ManifestIndex.compactJSON(self) }

        /// Reads a layout file; the version must be this code's and the prefix length sensible.
        public init(jsonData data: Data) throws(Manifest.ReadError) {
            let layout = try ManifestIndex.decode(Layout.self, from: data, what: "an index layout file") { $0.version }
            guard (ManifestIndex.minimumPrefixLength...40).contains(layout.prefixLength) else {
                throw Manifest.ReadError(reason: "prefix length \(layout.prefixLength) is not between 2 and 40")
            }
            self = layout
        }
    }

    public var version: Int
    /// The images whose SHA1 starts with this file's prefix, by SHA1.
    public var images: [String: Entry]

    public init(version: Int = ManifestIndex.currentVersion, images: [String: Entry] = [:]) {
        self.version = version
        self.images = images
    }

    /// What a client needs of one image.
    public struct Entry: Sendable, Equatable, Codable {
        public var width: Int
        public var height: Int
        public var placeholder: String?
        public var averageColor: String?
        public var hasAlpha: Bool?
        public var variants: [String: Variant]

        public init(_ entry: Manifest.ImageEntry) {
            width = entry.width
            height = entry.height
            placeholder = entry.placeholder
            averageColor = entry.averageColor
            // As in the manifest, absent means false.
            hasAlpha = entry.hasAlpha == true ? true : nil
            variants = entry.variants.mapValues(Variant.init)
        }
    }

    /// What a client needs of one variant file.
    public struct Variant: Sendable, Equatable, Codable {
        /// Relative to the manifest's folder.
        public var path: String
        public var width: Int
        public var height: Int
        public var bytes: Int
        public var sha256: String
        public var progressive: Bool
        /// For a progressive file, the byte count after which each scan can be shown.
        public var scanEnds: [Int]?
        /// The file's siblings in other formats, as in the manifest.
        public var formats: [String: Manifest.FormatEntry]?

        public init(_ variant: Manifest.VariantEntry) {
            path = variant.path
            width = variant.width
            height = variant.height
            bytes = variant.bytes
            sha256 = variant.sha256
            progressive = variant.progressive
            scanEnds = variant.scanEnds
            formats = variant.formats
        }

        /// Every file path it names: the JPEG's, then its siblings' by format name.
        var paths: [String] { [path] + (formats ?? [:]).sorted { $0.key < $1.key }.map(\.value.path) }
    }

    /// The layout file's path relative to the manifest's folder.
    public static func layoutPath(manifestName: String = defaultManifestName) -> String {
        folder(forManifestNamed: manifestName) + "/" + layoutName
    }

    /// The index file for images whose SHA1 starts like `sha1`, relative to the manifest's
    /// folder, in an index of `prefixLength`-digit prefixes (`Layout`).
    public static func path(
        forSHA1 sha1: String, prefixLength: Int, manifestName: String = defaultManifestName
    ) -> String {
        folder(forManifestNamed: manifestName) + "/" + sha1.lowercased().prefix(prefixLength) + ".json"
    }

    /// Every prefix of `length` hex digits, in order.
    public static func prefixes(length: Int) -> [String] {
        let hex = "0123456789abcdef".map(String.init)
        var prefixes = [""]
        for _ in 0..<length { prefixes = prefixes.flatMap { prefix in hex.map { prefix + $0 } } }
        return prefixes
    }

    /// Every file of the index of `manifest`, by path relative to the manifest's folder: the
    /// layout file and one file for each prefix, in the index folder of a manifest named
    /// `manifestName`; with `only`, the layout file and the files of those prefixes.
    public static func files(
        for manifest: Manifest, manifestName: String = defaultManifestName, only: Set<String>? = nil
    ) -> [String: Data] {
        files(
            images: manifest.images, prefixLength: prefixLength(forImageCount: manifest.images.count),
            manifestName: manifestName, only: only)
    }

    /// `files(for:manifestName:only:)` of a manifest of which `images` are those whose prefix
    /// is in `only` (or all of them), and whose image count gives `length`.
    public static func files(
        images: [String: Manifest.ImageEntry], prefixLength length: Int, manifestName: String = defaultManifestName,
        only: Set<String>? = nil
    ) -> [String: Data] {
        let folder = folder(forManifestNamed: manifestName)
        var byPrefix: [Substring: [String: Entry]] = [:]
        for (sha1, entry) in images where only?.contains(String(sha1.prefix(length))) ?? true {
            byPrefix[sha1.prefix(length), default: [:]][sha1] = Entry(entry)
        }
        var files = [folder + "/" + layoutName: Layout(prefixLength: length).jsonData()]
        for prefix in prefixes(length: length) where only?.contains(prefix) ?? true {
            let index = ManifestIndex(images: byPrefix[Substring(prefix)] ?? [:])
            files[folder + "/" + prefix + ".json"] = index.jsonData()
        }
        return files
    }

    /// The file's bytes: compact JSON, keys sorted, a final newline (written by
    /// `JSONTextWriter` when every key is plain, as they are in what ladder writes).
    public func jsonData() -> Data { plainText().map { Data($0) } ?? Self.compactJSON(self) }

    /// One of the index's files decoded, with a version this code reads.
    static func decode<File: Decodable>(
        _ type: File.Type, from data: Data, what: String, version: (File) -> Int
    ) throws(Manifest.ReadError) -> File {
        let file: File
        do {
            file = try JSONDecoder().decode(type, from: data)
        } catch {
            throw Manifest.ReadError(reason: "not \(what): \(error)")
        }
        guard version(file) == currentVersion else {
            throw Manifest.ReadError(
                reason: "index version \(version(file)) is not supported (expected \(currentVersion))")
        }
        return file
    }

    /// Compact JSON, keys sorted, slashes as they are, a final newline: the index's encoding.
    static func compactJSON(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and integers cannot fail.
        var data = (try? encoder.encode(value)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Reads an index file and checks it as strictly as a manifest: version, SHA1 keys (each
    /// with the file's prefix, when `prefix` is given) and every path.
    public init(jsonData data: Data, prefix: String? = nil) throws(Manifest.ReadError) {
        let index = try Self.decode(ManifestIndex.self, from: data, what: "an index file") { $0.version }
        for (sha1, entry) in index.images {
            guard Manifest.isSHA1(sha1), prefix.map({ sha1.hasPrefix($0) }) ?? true else {
                throw Manifest.ReadError(reason: "\"\(sha1)\" is not a SHA1 this index file may hold")
            }
            for (name, variant) in entry.variants {
                for path in variant.paths {
                    if let problem = ManifestPath.problem(with: path) {
                        throw Manifest.ReadError(reason: "\(sha1) \(name): \(problem): \"\(path)\"")
                    }
                }
            }
        }
        self = index
    }
}
