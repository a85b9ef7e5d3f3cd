public import Foundation

/// One variant of an image as an app loads it: its size, and the files that hold it, the JPEG and
/// the siblings in other formats a build may write beside it (WebP, AVIF, JPEG XL).
///
/// Every rung of every image is one of these, for the resolver and the client alike
/// (`Ladder` holds an image's rungs and chooses the ones a view needs).
public struct Rung: Sendable, Hashable {
    /// The variant's name in the pipeline: "small_thumb", "large_thumb", "full"...
    public var name: String
    public var width: Int
    public var height: Int
    /// The JPEG, which every platform decodes; a progressive one shows scan by scan.
    public var jpeg: File
    /// The same picture in other formats, by format name; often smaller than the JPEG.
    public var siblings: [File]
    /// True for a progressive JPEG.
    public var progressive: Bool
    /// For a progressive JPEG, the byte count after which each scan can be shown (the last is
    /// the file's length); empty otherwise, and for manifests written before ladder recorded it.
    public var scanEnds: [Int]

    public init(
        name: String, width: Int, height: Int, jpeg: File, siblings: [File] = [], progressive: Bool,
        scanEnds: [Int] = []
    ) {
        self.name = name
        self.width = width
        self.height = height
        self.jpeg = jpeg
        self.siblings = siblings
        self.progressive = progressive
        self.scanEnds = scanEnds
    }

    /// The rung a variant of the manifest or the index describes, its paths resolved against
    /// `baseURL` (the folder that holds the manifest).
    public init(name: String, variant: ManifestIndex.Variant, baseURL: URL) {
        let siblings = (variant.formats ?? [:]).sorted { $0.key < $1.key }.map { format, file in
            File(
                format: Format(rawValue: format), url: ManifestPath.url(for: file.path, under: baseURL),
                bytes: file.bytes, sha256: file.sha256)
        }
        self.init(
            name: name, width: variant.width, height: variant.height,
            jpeg: File(
                format: .jpeg, url: ManifestPath.url(for: variant.path, under: baseURL), bytes: variant.bytes,
                sha256: variant.sha256),
            siblings: siblings, progressive: variant.progressive,
            scanEnds: variant.progressive ? variant.scanEnds ?? [] : [])
    }

    /// The JPEG's URL.
    public var url: URL { jpeg.url }

    /// The scans of the JPEG: one for a baseline file.
    public var scans: Int { progressive ? max(1, scanEnds.count) : 1 }

    /// The smallest of its files in one of `formats`; the JPEG when no sibling is.
    public func file(decodableIn formats: Set<Format>) -> File {
        siblings.filter { formats.contains($0.format) && $0.bytes < jpeg.bytes }.min { $0.bytes < $1.bytes } ?? jpeg
    }

    /// An image file format, named as the manifest names it.
    public struct Format: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public static let jpeg = Format(rawValue: "jpeg")
        public static let webp = Format(rawValue: "webp")
        public static let avif = Format(rawValue: "avif")
        /// JPEG XL; a ladder `jxl` sibling is its JPEG recompressed losslessly.
        public static let jxl = Format(rawValue: "jxl")

        public var description: String { rawValue }
    }

    /// One file of a rung.
    public struct File: Sendable, Hashable {
        public var format: Format
        public var url: URL
        public var bytes: Int
        /// SHA-256 of the whole file, 64 lowercase hex digits.
        public var sha256: String

        public init(format: Format, url: URL, bytes: Int, sha256: String) {
            self.format = format
            self.url = url
            self.bytes = bytes
            self.sha256 = sha256
        }
    }
}
