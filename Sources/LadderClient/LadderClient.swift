public import Foundation
public import LadderManifest

/// An image the client loads: by the SHA1 of its source file, or by its source path as the
/// manifest lists it ("photos/cat.jpg"; needs a client made with the manifest).
public enum ImageReference: Sendable, Hashable {
    case sha1(String)
    case source(String)
}

/// Loads the ladders ladder built, as an app shows them: for an image and the size a view shows
/// it at, the placeholder at once, then each rung up to the one the view needs, a progressive
/// rung scan by scan while it downloads, every picture decoded off the main actor.
///
/// - Every rung up to the needed one downloads at once, the smaller ones queued first; a rung
///   drawn cancels the lower rungs still downloading, and a lower rung never replaces a higher
///   one. Loads of one file share one download.
/// - Downloads run within a limit shared by every load of the client: an image on screen before
///   a prefetched one, and an index file (the placeholder comes with it) before variant bytes.
/// - Each whole file is checked against the manifest's SHA-256 before it is drawn whole or
///   cached; a file that fails (or a 404) is reported as `.failed`, and the next rung carries
///   on. Scans are drawn from a prefix before the file can be checked (docs/SWIFT_CLIENT.md
///   says what is trusted when).
/// - Pictures are kept in a memory cache (`cached(_:width:height:fit:)` looks them up at once),
///   files and index files in an optional disk cache; a download that stops resumes with `Range`.
///
/// ```swift
/// let client = LadderClient(baseURL: URL(string: "https://cdn.example.com/photos/")!)
/// for try await case .frame(let frame) in client.load(.sha1(sha1), width: 750, height: 750, fit: .aspectFill) {
///     imageView.image = frame.picture.uiImage
/// }
/// ```
public final class LadderClient: Sendable {
    /// How a client loads: its caches, download limit, decoder and transport.
    public struct Configuration: Sendable {
        /// The manifest whose index the client reads: `index/` for manifest.json, `NAME.index/`
        /// for NAME.json.
        public var manifestName = ManifestIndex.defaultManifestName
        /// Decoded pictures; nil keeps none. Several clients may share one.
        public var memoryCache: MemoryCache? = MemoryCache()
        /// Files, index files and the first part of stopped downloads; nil keeps none.
        public var diskCache: DiskCache?
        /// The most downloads at once, index files included.
        public var maxConcurrentDownloads = 6
        /// What decodes the files: ImageIO on Apple platforms, libjpeg-turbo elsewhere.
        public var decoder: any ImageDecoding = PlatformDecoder()
        /// How files are downloaded; nil for a `URLSessionTransport` of the client's own, released
        /// with it.
        public var transport: (any LadderTransport)?
        /// True to draw every scan the bytes complete, even when a later one is complete too
        /// (for checking what the client draws); false to draw only the latest.
        public var drawsEveryScan = false

        public init() {}
    }

    /// The folder that holds the manifest, where paths are resolved.
    public let baseURL: URL
    public let memoryCache: MemoryCache?
    public let diskCache: DiskCache?
    let configuration: Configuration
    let transport: any LadderTransport
    let queue: DownloadQueue
    let catalog: ImageCatalog
    let downloads: DownloadCenter
    /// Source paths to SHA1s, when the client has the manifest.
    let sha1BySource: [String: String]
    let prefetches = PrefetchRegistry()

    /// A client of the ladders under `baseURL` (the folder that holds the manifest). Without
    /// `manifest`, it resolves images through the index files beside the manifest: it reads the
    /// index's layout once, then one small prefix file for each prefix of the images it loads.
    /// With it, it also resolves source paths.
    public init(baseURL: URL, manifest: Manifest? = nil, configuration: Configuration = Configuration()) {
        self.baseURL = baseURL
        self.configuration = configuration
        memoryCache = configuration.memoryCache
        diskCache = configuration.diskCache
        transport = configuration.transport ?? URLSessionTransport()
        queue = DownloadQueue(limit: configuration.maxConcurrentDownloads)
        catalog = ImageCatalog(
            manifest: manifest, manifestName: configuration.manifestName, baseURL: baseURL, transport: transport,
            queue: queue, disk: diskCache)
        downloads = DownloadCenter(queue: queue, transport: transport, disk: diskCache)
        sha1BySource = manifest.map(ImageCatalog.sha1BySource) ?? [:]
    }

    /// Loads `image` for a view of `width` x `height` pixels (points times the screen's scale)
    /// that shows it as `fit` says. The sequence throws only when the image cannot be resolved;
    /// it ends once the needed rung is drawn whole (`Frame.isFinal`) or every rung was tried.
    /// Stop iterating (or cancel the task) to cancel what is still downloading for it.
    public func load(
        _ image: ImageReference, width: Int, height: Int, fit: Ladder.Fit = .aspectFit
    ) -> AsyncThrowingStream<LadderEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LadderEvent, any Error>.makeStream()
        let task = Task {
            do {
                let (sha1, entry) = try await catalog.entry(for: image, priority: .visibleIndex)
                let view = LadderLoad.View(width: width, height: height, fit: fit)
                await LadderLoad(client: self, sha1: sha1, entry: entry, view: view).run(into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The best picture of `image` the memory cache holds for a view of `width` x `height`
    /// pixels shown as `fit`, at once: for a reused cell, before its load starts. The smallest
    /// whole rung at least as sharp as the rung the view needs, drawn large enough (`isFinal`:
    /// no load is needed), or else the largest picture kept; nil when none is, or when a source
    /// path cannot be resolved without the manifest.
    public func cached(_ image: ImageReference, width: Int, height: Int, fit: Ladder.Fit = .aspectFit) -> Frame? {
        guard let memoryCache, let sha1 = knownSHA1(of: image) else { return nil }
        let kept = memoryCache.frames(sha1: sha1).filter { $0.frame.rung != nil }
        guard let ladder = kept.first?.ladder else { return nil }
        let needed = ladder.rungs(forWidth: width, height: height, fit: fit).count - 1
        let sharp = kept.map(\.frame).filter { frame in
            guard let rung = frame.rung, frame.stage == .whole,
                let index = ladder.rungs.firstIndex(where: { $0.name == rung.name }), index >= needed
            else { return false }
            let shown = fit.shownSize(width: rung.width, height: rung.height, inWidth: width, height: height)
            return frame.picture.width >= shown.width && frame.picture.height >= shown.height
        }
        if var final = sharp.min(by: { $0.picture.cost < $1.picture.cost }) {
            final.isFinal = true
            return final
        }
        func rank(_ frame: Frame) -> (Int, Int) { (frame.picture.cost, frame.stage == .whole ? 1 : 0) }
        var best = kept.map(\.frame).max { rank($0) < rank($1) }
        best?.isFinal = false
        return best
    }

    /// Where every download stands: index files first, then variant files, each by URL.
    public func downloadsInProgress() async -> [DownloadStatus] {
        await catalog.statuses().sorted { $0.url.absoluteString < $1.url.absoluteString } + downloads.statuses()
    }

    /// The SHA1 of `image`, when it can be known without the network.
    func knownSHA1(of image: ImageReference) -> String? {
        switch image {
        case .sha1(let sha1): Manifest.isSHA1(sha1.lowercased()) ? sha1.lowercased() : nil
        case .source(let path): sha1BySource[path]
        }
    }
}
