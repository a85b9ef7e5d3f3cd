/// The record of a build: for every source's bytes (keyed by their SHA1), where its variants are.
///
/// The shape is fixed by ladder's contract with client apps (manifest version 1). Paths are
/// relative to the folder that holds the manifest, `/`-separated, with no `..` segment.
public struct Manifest: Sendable, Equatable, Codable {
    /// The manifest format version this code reads and writes.
    public static let currentVersion = 1

    public var version: Int
    public var generator: Generator
    /// Entries by the SHA1 of the source file's bytes (40 lowercase hex digits).
    public var images: [String: ImageEntry]
    /// Sources that could not be built, by source path, with a one-line reason.
    public var failures: [String: String]
    /// The SHA1 of each failed source's bytes, by source path (absent when no source failed,
    /// and for a source that could not be read), so that `verify` sees a failed file that was
    /// replaced since.
    public var failureSHA1: [String: String]?
    /// Set only in a partial manifest, written by one shard of a sharded build: which share of
    /// the sources it holds. `ladder merge` joins the shards' partial manifests into one
    /// manifest, which has no `shard`.
    public var shard: Shard?
    /// What each variant's `recipe` fingerprint stands for: the lines the fingerprint is the
    /// SHA1 of ("box 2560x2560", "quality 85", "libvips 8.14.1"...), by fingerprint, so that a
    /// reader can tell what changed between two recipes. Absent in manifests written before
    /// ladder recorded it.
    public var recipes: [String: [String]]?

    public init(
        version: Int = Manifest.currentVersion, generator: Generator, images: [String: ImageEntry] = [:],
        failures: [String: String] = [:], failureSHA1: [String: String]? = nil, shard: Shard? = nil,
        recipes: [String: [String]]? = nil
    ) {
        self.version = version
        self.generator = generator
        self.images = images
        self.failures = failures
        self.failureSHA1 = failureSHA1
        self.shard = shard
        self.recipes = recipes
    }

    /// What a partial manifest says about the build it is a share of, so that merging can check
    /// that the shards ran on the same sources with the same pipeline.
    public struct Shard: Sendable, Equatable, Codable {
        /// Which share this is, from 1 to `count`.
        public var index: Int
        public var count: Int
        /// How many source files the build found (all shards find the same ones).
        public var sources: Int
        /// SHA1 of the sorted source paths, each followed by a line feed.
        public var sourcesSHA1: String
        /// The recipe fingerprint of each variant.
        public var recipes: [String: String]

        public init(index: Int, count: Int, sources: Int, sourcesSHA1: String, recipes: [String: String]) {
            self.index = index
            self.count = count
            self.sources = sources
            self.sourcesSHA1 = sourcesSHA1
            self.recipes = recipes
        }
    }

    /// The versions of the software that wrote the variants.
    public struct Generator: Sendable, Equatable, Codable {
        public var ladder: String
        public var libvips: String
        public var libjpeg: String
        public var libexif: String?

        public init(ladder: String, libvips: String, libjpeg: String, libexif: String? = nil) {
            self.ladder = ladder
            self.libvips = libvips
            self.libjpeg = libjpeg
            self.libexif = libexif
        }
    }

    /// One distinct source content and its variants.
    public struct ImageEntry: Sendable, Equatable, Codable {
        /// Every source path with these bytes, sorted.
        public var sources: [String]
        /// Size after the EXIF orientation is applied.
        public var width: Int
        public var height: Int
        public var variants: [String: VariantEntry]
        /// The source's format, as its decoder names it: "jpeg", "png", "webp"...
        public var format: String?
        /// The source's size in bytes.
        public var bytes: Int?
        /// The EXIF orientation that was applied to make the variants upright (1 = none).
        public var orientation: Int?
        /// When the photo was taken (EXIF DateTimeOriginal, ISO 8601), when the source says so.
        public var captured: String?
        /// True when the source carried GPS data, which the variants do not.
        public var gpsRemoved: Bool?
        /// A ThumbHash of the upright, flattened picture, base64 with padding: what an app shows
        /// before any variant arrives (`ThumbHash(base64:)` decodes it).
        public var placeholder: String?
        /// The picture's mean colour in sRGB, `#rrggbb`.
        public var averageColor: String?
        /// True when the source had transparency, flattened onto the pipeline's background.
        /// Written only when true, to keep each entry small: in a manifest, an entry with a
        /// placeholder and no `hasAlpha` reads as false; one with neither (written before ladder
        /// made placeholders) reads as nil, unknown.
        public var hasAlpha: Bool?

        public init(
            sources: [String], width: Int, height: Int, variants: [String: VariantEntry], format: String? = nil,
            bytes: Int? = nil, orientation: Int? = nil, captured: String? = nil, gpsRemoved: Bool? = nil,
            placeholder: String? = nil, averageColor: String? = nil, hasAlpha: Bool? = nil
        ) {
            self.placeholder = placeholder
            self.averageColor = averageColor
            self.hasAlpha = hasAlpha
            self.sources = sources
            self.width = width
            self.height = height
            self.variants = variants
            self.format = format
            self.bytes = bytes
            self.orientation = orientation
            self.captured = captured
            self.gpsRemoved = gpsRemoved
        }

        enum CodingKeys: String, CodingKey {
            case sources, width, height, variants, format, bytes, orientation, captured, gpsRemoved
            case placeholder, averageColor, hasAlpha
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sources = try container.decode([String].self, forKey: .sources)
            width = try container.decode(Int.self, forKey: .width)
            height = try container.decode(Int.self, forKey: .height)
            variants = try container.decode([String: VariantEntry].self, forKey: .variants)
            format = try container.decodeIfPresent(String.self, forKey: .format)
            bytes = try container.decodeIfPresent(Int.self, forKey: .bytes)
            orientation = try container.decodeIfPresent(Int.self, forKey: .orientation)
            captured = try container.decodeIfPresent(String.self, forKey: .captured)
            gpsRemoved = try container.decodeIfPresent(Bool.self, forKey: .gpsRemoved)
            placeholder = try container.decodeIfPresent(String.self, forKey: .placeholder)
            averageColor = try container.decodeIfPresent(String.self, forKey: .averageColor)
            // Absent means false where the placeholder fields were written.
            hasAlpha = try container.decodeIfPresent(Bool.self, forKey: .hasAlpha) ?? (placeholder == nil ? nil : false)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sources, forKey: .sources)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(variants, forKey: .variants)
            try container.encodeIfPresent(format, forKey: .format)
            try container.encodeIfPresent(bytes, forKey: .bytes)
            try container.encodeIfPresent(orientation, forKey: .orientation)
            try container.encodeIfPresent(captured, forKey: .captured)
            try container.encodeIfPresent(gpsRemoved, forKey: .gpsRemoved)
            try container.encodeIfPresent(placeholder, forKey: .placeholder)
            try container.encodeIfPresent(averageColor, forKey: .averageColor)
            // Only when true (see `hasAlpha`).
            if hasAlpha == true { try container.encode(true, forKey: .hasAlpha) }
        }
    }

    /// One written variant file.
    public struct VariantEntry: Sendable, Equatable, Codable {
        /// Relative to the manifest's folder.
        public var path: String
        public var width: Int
        public var height: Int
        public var bytes: Int
        /// SHA-256 of the file, 64 lowercase hex digits.
        public var sha256: String
        public var progressive: Bool
        /// Scans in the file: the script's length for a progressive JPEG, 1 for a baseline one.
        public var scans: Int
        /// Identifies the recipe and encoder that made the file; a different value means the
        /// file must be made again.
        public var recipe: String
        /// The scan script of a progressive file, in jpegtran's notation ("0,1,2: 0-0, 0, 0;
        /// 0: 1-63, 0, 1; ..."): the one chosen for this image, or the fixed one. Absent for
        /// baseline files and in manifests written before ladder recorded it.
        public var script: String?
        /// Progressive files only: for each scan in order, the byte offset just past its
        /// entropy-coded data, so that the first `scanEnds[k]` bytes are enough to show scan
        /// k + 1 (an HTTP Range request `bytes=0-(scanEnds[k] - 1)`). The last one is the file's
        /// length: the end-of-image marker included.
        public var scanEnds: [Int]?
        /// The file's siblings in other formats, by format ("webp", "avif", "jxl"): the same
        /// picture at the same width and height. Absent when there are none.
        public var formats: [String: FormatEntry]?

        public init(
            path: String, width: Int, height: Int, bytes: Int, sha256: String, progressive: Bool, scans: Int,
            recipe: String, scanEnds: [Int]? = nil, script: String? = nil, formats: [String: FormatEntry]? = nil
        ) {
            self.formats = formats
            self.script = script
            self.path = path
            self.width = width
            self.height = height
            self.bytes = bytes
            self.sha256 = sha256
            self.progressive = progressive
            self.scans = scans
            self.recipe = recipe
            self.scanEnds = scanEnds
        }
    }

    /// A sibling of a variant file in another format: where it is, its size and its SHA-256.
    public struct FormatEntry: Sendable, Equatable, Codable {
        /// Relative to the manifest's folder.
        public var path: String
        public var bytes: Int
        /// SHA-256 of the file, 64 lowercase hex digits.
        public var sha256: String

        public init(path: String, bytes: Int, sha256: String) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
        }
    }
}
