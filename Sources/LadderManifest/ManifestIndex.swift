public import Foundation

/// One of the index files written beside the manifest, so that an app can resolve one image
/// without downloading the whole manifest: `index/ab.json` holds the images whose SHA1 starts
/// with `ab`, with only what a client needs (sizes, rungs, checksums, scan ends, placeholder).
///
/// All 256 files are written on every build, empty ones included, so a missing file is always
/// an error, never "no such image". Their bytes follow from the manifest alone (compact JSON,
/// keys sorted, a final newline): two builds of the same inputs write the same index. Variant
/// paths are relative to the manifest's folder, as in the manifest.
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
    /// How many leading hex digits of the SHA1 name a file.
    public static let prefixLength = 2

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
            hasAlpha = entry.hasAlpha
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

        public init(_ variant: Manifest.VariantEntry) {
            path = variant.path
            width = variant.width
            height = variant.height
            bytes = variant.bytes
            sha256 = variant.sha256
            progressive = variant.progressive
            scanEnds = variant.scanEnds
        }
    }

    /// The index file for images whose SHA1 starts like `sha1`, relative to the manifest's folder.
    public static func path(forSHA1 sha1: String, manifestName: String = defaultManifestName) -> String {
        folder(forManifestNamed: manifestName) + "/" + sha1.lowercased().prefix(prefixLength) + ".json"
    }

    /// Every index file of `manifest`, by path relative to the manifest's folder: one for each
    /// of the 256 prefixes, in the index folder of a manifest named `manifestName`.
    public static func files(for manifest: Manifest, manifestName: String = defaultManifestName) -> [String: Data] {
        let folder = folder(forManifestNamed: manifestName)
        var byPrefix: [String: ManifestIndex] = [:]
        let hex = "0123456789abcdef".map(String.init)
        for high in hex { for low in hex { byPrefix[high + low] = ManifestIndex() } }
        for (sha1, entry) in manifest.images {
            byPrefix[String(sha1.prefix(prefixLength)), default: ManifestIndex()].images[sha1] = Entry(entry)
        }
        return Dictionary(uniqueKeysWithValues: byPrefix.map { (folder + "/" + $0.key + ".json", $0.value.jsonData()) })
    }

    /// The file's bytes: compact JSON, keys sorted, a final newline.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and integers cannot fail.
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Reads an index file and checks it as strictly as a manifest: version, SHA1 keys (each
    /// with the file's prefix, when `prefix` is given) and every path.
    public init(jsonData data: Data, prefix: String? = nil) throws(Manifest.ReadError) {
        let index: ManifestIndex
        do {
            index = try JSONDecoder().decode(ManifestIndex.self, from: data)
        } catch {
            throw Manifest.ReadError(reason: "not an index file: \(error)")
        }
        guard index.version == Self.currentVersion else {
            throw Manifest.ReadError(
                reason: "index version \(index.version) is not supported (expected \(Self.currentVersion))")
        }
        for (sha1, entry) in index.images {
            guard Manifest.isSHA1(sha1), prefix.map({ sha1.hasPrefix($0) }) ?? true else {
                throw Manifest.ReadError(reason: "\"\(sha1)\" is not a SHA1 this index file may hold")
            }
            for (name, variant) in entry.variants {
                if let problem = ManifestPath.problem(with: variant.path) {
                    throw Manifest.ReadError(reason: "\(sha1) \(name): \(problem): \"\(variant.path)\"")
                }
            }
        }
        self = index
    }
}
