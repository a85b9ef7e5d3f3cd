import Foundation
import LadderManifest

/// Where the client learns about images: a whole manifest the app already has, or the index
/// files beside it, fetched one prefix at a time and kept in memory.
actor ImageCatalog {
    enum Source {
        case manifest(Manifest, bySource: [String: String])
        case index
    }

    private let source: Source
    private let baseURL: URL
    private let transport: any LadderTransport
    private let limiter: DownloadLimiter
    private let manifestName: String
    private var layout: Task<ManifestIndex.Layout, any Error>?
    private var indexFiles: [String: Task<ManifestIndex, any Error>] = [:]

    init(
        manifest: Manifest?, manifestName: String = ManifestIndex.defaultManifestName, baseURL: URL,
        transport: any LadderTransport, limiter: DownloadLimiter
    ) {
        if let manifest {
            var bySource: [String: String] = [:]
            for (sha1, entry) in manifest.images { for path in entry.sources { bySource[path] = sha1 } }
            source = .manifest(manifest, bySource: bySource)
        } else {
            source = .index
        }
        self.manifestName = manifestName
        self.baseURL = baseURL
        self.transport = transport
        self.limiter = limiter
    }

    /// The image's SHA1 and entry.
    func entry(for image: ImageReference) async throws -> (sha1: String, entry: ManifestIndex.Entry) {
        switch (image, source) {
        case (.sha1(let sha1), .manifest(let manifest, _)):
            guard let entry = manifest.images[sha1.lowercased()] else { throw LadderError.unknownImage(sha1) }
            return (sha1.lowercased(), ManifestIndex.Entry(entry))
        case (.source(let path), .manifest(let manifest, let bySource)):
            guard let sha1 = bySource[path], let entry = manifest.images[sha1] else {
                throw LadderError.unknownImage(path)
            }
            return (sha1, ManifestIndex.Entry(entry))
        case (.source(let path), .index):
            // The index is keyed by content; a source path needs the manifest.
            throw LadderError.unknownImage("\(path) (source paths need the manifest; the index knows SHA1s)")
        case (.sha1(let sha1), .index):
            let key = sha1.lowercased()
            guard Manifest.isSHA1(key) else { throw LadderError.unknownImage(sha1) }
            let index = try await indexFile(for: key)
            guard let entry = index.images[key] else { throw LadderError.unknownImage(sha1) }
            return (key, entry)
        }
    }

    /// The index's layout, fetched once (concurrent callers share the fetch; a failed fetch is
    /// tried again next time).
    private func indexLayout() async throws -> ManifestIndex.Layout {
        if let layout { return try await layout.value }
        let url = Self.url(for: ManifestIndex.layoutPath(manifestName: manifestName), under: baseURL)
        let task = Task { [transport, limiter] in
            let data = try await Self.download(url, transport: transport, limiter: limiter)
            do {
                return try ManifestIndex.Layout(jsonData: data)
            } catch {
                throw LadderError.catalog(url: url, reason: "\(error)")
            }
        }
        layout = task
        do {
            return try await task.value
        } catch {
            layout = nil
            throw error
        }
    }

    /// The index file for `sha1`'s prefix, fetched once (concurrent callers share the fetch;
    /// a failed fetch is tried again next time).
    private func indexFile(for sha1: String) async throws -> ManifestIndex {
        let prefixLength = try await indexLayout().prefixLength
        let path = ManifestIndex.path(forSHA1: sha1, prefixLength: prefixLength, manifestName: manifestName)
        if let task = indexFiles[path] { return try await task.value }
        let url = Self.url(for: path, under: baseURL)
        let task = Task<ManifestIndex, any Error> { [transport, limiter] in
            let data = try await Self.download(url, transport: transport, limiter: limiter)
            do {
                return try ManifestIndex(jsonData: data, prefix: String(sha1.prefix(prefixLength)))
            } catch {
                throw LadderError.catalog(url: url, reason: "\(error)")
            }
        }
        indexFiles[path] = task
        do {
            return try await task.value
        } catch {
            indexFiles[path] = nil
            throw error
        }
    }

    /// A whole small file, within the download limit (index files count against it like
    /// variants).
    private static func download(
        _ url: URL, transport: any LadderTransport, limiter: DownloadLimiter
    ) async throws
        -> Data
    {
        var data = Data()
        try await limiter.acquire()
        do {
            for try await chunk in transport.download(url) { data.append(chunk) }
            await limiter.release()
        } catch let error as LadderError {
            await limiter.release()
            throw error
        } catch {
            await limiter.release()
            throw LadderError.transport(url: url, reason: "\(error)")
        }
        return data
    }

    /// `path` (relative, `/`-separated, checked when read) under `baseURL`.
    static func url(for path: String, under baseURL: URL) -> URL {
        path.split(separator: "/").reduce(baseURL) { url, segment in
            url.appendingPathComponent(String(segment), isDirectory: false)
        }
    }

    /// The rungs to load for a view of `width` x `height` pixels showing the whole image: the
    /// variants smallest first (by pixels, then by name), up to the first that covers the view
    /// at the image's aspect ratio, or all of them when none does. Each comes as the smallest of
    /// its files in `formats` (the JPEG, or a sibling), the JPEG among equals.
    static func rungs(
        of entry: ManifestIndex.Entry, width: Int, height: Int, baseURL: URL, formats: Set<String> = []
    ) -> [Rung] {
        let all = entry.variants.map { name, variant in
            var rung = Rung(
                name: name, url: url(for: variant.path, under: baseURL), width: variant.width,
                height: variant.height, bytes: variant.bytes, sha256: variant.sha256, progressive: variant.progressive,
                scanEnds: variant.scanEnds)
            let siblings = (variant.formats ?? [:]).filter { formats.contains($0.key) && $0.key != "jpeg" }
            if let (format, sibling) = siblings.min(by: { ($0.value.bytes, $0.key) < ($1.value.bytes, $1.key) }),
                sibling.bytes < variant.bytes
            {
                // A sibling is shown whole: the scans are the JPEG's.
                rung.url = url(for: sibling.path, under: baseURL)
                rung.bytes = sibling.bytes
                rung.sha256 = sibling.sha256
                rung.progressive = false
                rung.scanEnds = nil
                rung.format = format
            }
            return rung
        }.sorted { ($0.width * $0.height, $0.name) < ($1.width * $1.height, $1.name) }
        guard let largest = all.last else { return [] }
        let scale = min(
            Double(width) / Double(max(1, largest.width)), Double(height) / Double(max(1, largest.height)))
        let shownWidth = Int((Double(largest.width) * scale).rounded(.up))
        let shownHeight = Int((Double(largest.height) * scale).rounded(.up))
        guard let needed = all.firstIndex(where: { $0.width >= shownWidth && $0.height >= shownHeight }) else {
            return all
        }
        return Array(all[...needed])
    }
}
