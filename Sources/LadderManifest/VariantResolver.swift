public import Foundation

/// What an app needs from a manifest: for a photo (known by the SHA1 of its source file, or by
/// its source path), the URLs of its variants in the order to load them, smallest first, so it
/// can show `small_thumb`, then `large_thumb`, then the full-size image as each arrives.
///
/// It links to nothing but Foundation: add the `LadderManifest` product to an app.
///
/// ```swift
/// let manifest = try Manifest(jsonData: data)
/// let resolver = VariantResolver(manifest: manifest, baseURL: URL(string: "https://cdn.example.com/photos/")!)
/// for rung in resolver.ladder(forSHA1: sha1) ?? [] { load(rung.url) }
/// ```
public struct VariantResolver: Sendable {
    /// One variant as an app loads it.
    public struct Rung: Sendable, Equatable {
        /// The variant's name in the pipeline: "small_thumb", "large_thumb", "full"...
        public var name: String
        public var url: URL
        public var width: Int
        public var height: Int
        public var bytes: Int
        /// True for a progressive JPEG, which sharpens scan by scan while it loads.
        public var progressive: Bool
        public var scans: Int
    }

    public let manifest: Manifest
    /// Where the manifest's folder is served: variant paths are resolved against it.
    public let baseURL: URL
    private let sha1BySource: [String: String]

    public init(manifest: Manifest, baseURL: URL) {
        self.manifest = manifest
        self.baseURL = baseURL
        var bySource: [String: String] = [:]
        for (sha1, entry) in manifest.images {
            for source in entry.sources { bySource[source] = sha1 }
        }
        self.sha1BySource = bySource
    }

    /// The SHA1 of the image built from `path`, a source path as the manifest lists it
    /// ("photos/cat.jpg"); nil when it is not in the manifest or failed to build.
    public func sha1(forSource path: String) -> String? {
        sha1BySource[path]
    }

    /// The variants of the image with this SHA1, smallest first (by pixels, then by name);
    /// nil when the manifest does not know it.
    public func ladder(forSHA1 sha1: String) -> [Rung]? {
        guard let entry = manifest.images[sha1.lowercased()] else { return nil }
        return entry.variants.map { name, variant in
            Rung(
                name: name, url: url(for: variant.path), width: variant.width, height: variant.height,
                bytes: variant.bytes, progressive: variant.progressive, scans: variant.scans)
        }.sorted { ($0.width * $0.height, $0.name) < ($1.width * $1.height, $1.name) }
    }

    /// The smallest variant sharp enough for a view of `width` x `height` pixels (points times
    /// the screen's scale) that shows the whole image (aspect fit), or the largest there is:
    /// the last rung an app needs to load for that view.
    public func rung(forSHA1 sha1: String, fittingWidth width: Int, height: Int) -> Rung? {
        guard let ladder = ladder(forSHA1: sha1), let largest = ladder.last else { return nil }
        // The size the image is shown at: fitted inside the view, keeping its aspect ratio.
        let scale = min(Double(width) / Double(max(1, largest.width)), Double(height) / Double(max(1, largest.height)))
        let shownWidth = Int((Double(largest.width) * scale).rounded(.up))
        let shownHeight = Int((Double(largest.height) * scale).rounded(.up))
        return ladder.first { $0.width >= shownWidth && $0.height >= shownHeight } ?? largest
    }

    /// `path` (relative, `/`-separated, checked when the manifest was read) under `baseURL`,
    /// each segment percent-encoded.
    func url(for path: String) -> URL {
        path.split(separator: "/").reduce(baseURL) { url, segment in
            url.appendingPathComponent(String(segment), isDirectory: false)
        }
    }
}
