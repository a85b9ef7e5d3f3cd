public import Foundation

/// What an app needs from a manifest: for a photo (known by the SHA1 of its source file, or by
/// its source path), its ladder, whose rungs it loads smallest first, so it can show
/// `small_thumb`, then `large_thumb`, then the full-size image as each arrives.
///
/// It links to nothing but Foundation: add the `LadderManifest` product to an app.
///
/// ```swift
/// let manifest = try Manifest(jsonData: data)
/// let resolver = VariantResolver(manifest: manifest, baseURL: URL(string: "https://cdn.example.com/photos/")!)
/// let rungs = resolver.ladder(forSHA1: sha1)?.rungs(forWidth: 750, height: 750, fit: .aspectFill) ?? []
/// for rung in rungs { load(rung.url) }
/// ```
public struct VariantResolver: Sendable {
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

    /// The ladder of the image with this SHA1 (hex digits in either case); nil when the manifest
    /// does not know it.
    public func ladder(forSHA1 sha1: String) -> Ladder? {
        guard let entry = manifest.images[sha1.lowercased()] else { return nil }
        return Ladder(ManifestIndex.Entry(entry), baseURL: baseURL)
    }
}
