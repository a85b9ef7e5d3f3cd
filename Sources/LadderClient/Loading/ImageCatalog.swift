import Foundation
import LadderManifest

/// Where the client learns about images: a whole manifest the app already has, or the index
/// files beside it, fetched one prefix at a time and kept in memory for the client's life.
///
/// Index files are fetched from the server the first time the client needs them, so that a new
/// build is seen, and kept in the disk cache; when the server cannot be reached (the transport
/// fails, or it answers 5xx) the disk cache's copy is used, so cached images load offline. An
/// index file is trusted as served: it has no checksum, but it is read as strictly as a
/// manifest (version, SHA1 keys, every path).
actor ImageCatalog {
    enum Source {
        case manifest(Manifest, bySource: [String: String])
        case index
    }

    private let source: Source
    private let baseURL: URL
    private let manifestName: String
    private let transport: any LadderTransport
    private let queue: DownloadQueue
    private let disk: DiskCache?
    private var layout: Fetch<ManifestIndex.Layout>?
    private var indexFiles: [String: Fetch<ManifestIndex>] = [:]

    /// A file being fetched, or fetched: its task, its place in the download queue, and where
    /// it stands.
    private struct Fetch<File: Sendable> {
        var task: Task<File, any Error>
        var place: UInt64
        var progress: FetchProgress
    }

    init(
        manifest: Manifest?, manifestName: String, baseURL: URL, transport: any LadderTransport, queue: DownloadQueue,
        disk: DiskCache?
    ) {
        source = manifest.map { .manifest($0, bySource: Self.sha1BySource(in: $0)) } ?? .index
        self.manifestName = manifestName
        self.baseURL = baseURL
        self.transport = transport
        self.queue = queue
        self.disk = disk
    }

    /// Every source path of the manifest, to its image's SHA1.
    static func sha1BySource(in manifest: Manifest) -> [String: String] {
        var bySource: [String: String] = [:]
        for (sha1, entry) in manifest.images { for path in entry.sources { bySource[path] = sha1 } }
        return bySource
    }

    /// The image's SHA1 and entry; index files are fetched at `priority`.
    func entry(
        for image: ImageReference, priority: DownloadPriority
    ) async throws -> (sha1: String, entry: ManifestIndex.Entry) {
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
            let index = try await indexFile(for: key, priority: priority)
            guard let entry = index.images[key] else { throw LadderError.unknownImage(sha1) }
            return (key, entry)
        }
    }

    /// Where every index file being fetched stands.
    func statuses() -> [DownloadStatus] {
        ([layout?.progress].compactMap { $0 } + indexFiles.values.map(\.progress)).compactMap(\.status)
    }

    /// The index's layout, fetched once (concurrent callers share the fetch; a failed fetch is
    /// tried again next time).
    private func indexLayout(priority: DownloadPriority) async throws -> ManifestIndex.Layout {
        if let layout {
            queue.raise(layout.place, to: priority)
            layout.progress.raise(to: priority)
            return try await layout.task.value
        }
        let fetch = start(ManifestIndex.layoutPath(manifestName: manifestName), priority: priority) {
            try ManifestIndex.Layout(jsonData: $0)
        }
        layout = fetch
        do {
            return try await fetch.task.value
        } catch {
            layout = nil
            throw error
        }
    }

    /// The index file for `sha1`'s prefix, fetched once (concurrent callers share the fetch; a
    /// failed fetch is tried again next time).
    private func indexFile(for sha1: String, priority: DownloadPriority) async throws -> ManifestIndex {
        let prefixLength = try await indexLayout(priority: priority).prefixLength
        let path = ManifestIndex.path(forSHA1: sha1, prefixLength: prefixLength, manifestName: manifestName)
        if let fetch = indexFiles[path] {
            queue.raise(fetch.place, to: priority)
            fetch.progress.raise(to: priority)
            return try await fetch.task.value
        }
        let prefix = String(sha1.prefix(prefixLength))
        let fetch = start(path, priority: priority) { try ManifestIndex(jsonData: $0, prefix: prefix) }
        indexFiles[path] = fetch
        do {
            return try await fetch.task.value
        } catch {
            indexFiles[path] = nil
            throw error
        }
    }

    /// Starts fetching the index file at `path`, read with `read`: from the server, kept in the
    /// disk cache; from the disk cache when the server cannot be reached.
    private func start<File: Sendable>(
        _ path: String, priority: DownloadPriority, read: @escaping @Sendable (Data) throws -> File
    ) -> Fetch<File> {
        let url = ManifestPath.url(for: path, under: baseURL)
        let name = DiskCache.indexName(path: path, baseURL: baseURL)
        let place = queue.reserve(priority)
        let progress = FetchProgress(url: url, priority: priority)
        let task = Task { [transport, queue, disk] in
            defer { progress.finish() }
            let data: Data
            do {
                data = try await Self.download(url, place: place, transport: transport, queue: queue) {
                    progress.markRunning()
                }
            } catch let error as LadderError where error.isUnreachable {
                guard let cached = await disk?.data(named: name) else { throw error }
                data = cached
            }
            let file: File
            do {
                file = try read(data)
            } catch {
                throw LadderError.catalog(url: url, reason: "\(error)")
            }
            await disk?.store(data, named: name)
            return file
        }
        return Fetch(task: task, place: place, progress: progress)
    }

    /// A whole small file, within the download limit (index files count against it like
    /// variants).
    private static func download(
        _ url: URL, place: UInt64, transport: any LadderTransport, queue: DownloadQueue, started: () -> Void
    ) async throws -> Data {
        try await queue.acquire(place)
        defer { queue.release() }
        started()
        var data = Data()
        do {
            for try await event in transport.download(TransportRequest(url: url)) {
                switch event {
                case .response(let status, _) where status != 200:
                    throw LadderError.http(status: status, url: url)
                case .response:
                    break
                case .data(let chunk):
                    data.append(chunk)
                }
            }
        } catch let error as LadderError {
            throw error
        } catch {
            throw LadderError.transport(url: url, reason: "\(error)")
        }
        return data
    }
}

extension LadderError {
    /// True when the server could not be reached or could not serve: the disk cache's copy of
    /// an index file is used instead.
    var isUnreachable: Bool {
        switch self {
        case .transport: true
        case .http(let status, _): status >= 500
        default: false
        }
    }
}

/// Where the fetch of an index file stands, for `LadderClient.downloadsInProgress()`.
private final class FetchProgress: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    let url: URL
    private let lock = NSLock()
    private var priority: DownloadPriority
    private var running = false
    private var finished = false

    init(url: URL, priority: DownloadPriority) {
        self.url = url
        self.priority = priority
    }

    func raise(to priority: DownloadPriority) { lock.withLock { self.priority = max(self.priority, priority) } }
    func markRunning() { lock.withLock { running = true } }
    func finish() { lock.withLock { finished = true } }

    /// Nil once the fetch has ended.
    var status: DownloadStatus? {
        lock.withLock {
            finished
                ? nil
                : DownloadStatus(
                    url: url, isIndexFile: true, subscribers: 1, receivedBytes: 0, expectedBytes: 0, isRunning: running,
                    isVisible: priority >= .visibleIndex)
        }
    }
}
