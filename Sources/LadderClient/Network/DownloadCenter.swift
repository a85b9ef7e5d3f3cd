public import Foundation
import LadderManifest

/// What a load hears from the download of one of its files. Updates are coalesced: a load busy
/// decoding hears only the latest count.
enum DownloadUpdate: Sendable {
    /// The first `count` bytes of the file have arrived (read them from the download's buffer).
    case received(Int)
    /// The whole file, its length and SHA-256 checked, or why the download failed.
    case finished(Result<Data, LadderError>)
}

/// Where one file's download stands, for an app that shows what is loading.
public struct DownloadStatus: Sendable, Hashable {
    public var url: URL
    /// True for an index file (whose size is not known before it arrives).
    public var isIndexFile: Bool
    /// The loads that share it (an index file's are not counted: 1).
    public var subscribers: Int
    public var receivedBytes: Int
    /// The file's length; 0 for an index file.
    public var expectedBytes: Int
    /// True once it holds one of the client's download slots.
    public var isRunning: Bool
    /// True while an image on screen waits for it; false for a prefetch alone.
    public var isVisible: Bool
}

/// A load's subscription to the download of one file.
struct DownloadSubscription: Sendable {
    fileprivate let key: DownloadCenter.Key
    fileprivate let id: UInt64
    let updates: AsyncStream<DownloadUpdate>
    /// The file's bytes as they arrive.
    let buffer: DownloadBuffer
}

/// Every download of the client's variant files: one download per file, however many loads want
/// it, each load a subscriber that may leave without stopping the others; the download stops
/// when its last subscriber leaves.
///
/// A download that stops before its end keeps what it received (in the disk cache, or in
/// memory when there is none) with the server's validator, and the next download of that file
/// starts from there with `Range` and `If-Range`. A server that answers a range with the whole
/// file (200) is read from the start, its first bytes compared with those kept. What a file
/// received is forgotten as soon as the whole file fails its length or SHA-256 check.
actor DownloadCenter {
    fileprivate struct Key: Hashable {
        var url: URL
        var sha256: String
    }

    private let queue: DownloadQueue
    private let transport: any LadderTransport
    private let disk: DiskCache?
    private var downloads: [Key: SharedDownload] = [:]
    /// Downloads nobody listens to any more, until they have kept what they received.
    private var ending: [Key: Task<Void, Never>] = [:]
    private var nextSubscriber: UInt64 = 0
    /// What stopped downloads received, when there is no disk cache to keep it.
    private var partials = PartialMemory(limit: 64 << 20)

    init(queue: DownloadQueue, transport: any LadderTransport, disk: DiskCache?) {
        self.queue = queue
        self.transport = transport
        self.disk = disk
    }

    /// Subscribes to the download of `file` (`scanEnds` are its scans' ends, or empty),
    /// starting it at `priority` when none runs, raising it to `priority` when one does. A whole
    /// file that passes its check is stored in the disk cache as `diskName`.
    func subscribe(
        to file: Rung.File, scanEnds: [Int], diskName: String, priority: DownloadPriority
    ) -> DownloadSubscription {
        let key = Key(url: file.url, sha256: file.sha256)
        nextSubscriber += 1
        let (updates, continuation) = AsyncStream<DownloadUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if let download = downloads[key] {
            if download.add(nextSubscriber, continuation, priority: priority) {
                queue.raise(download.place, to: priority)
            }
            return DownloadSubscription(key: key, id: nextSubscriber, updates: updates, buffer: download.buffer)
        }
        let download = SharedDownload(
            file: file, scanEnds: scanEnds, place: queue.reserve(priority), priority: priority)
        _ = download.add(nextSubscriber, continuation, priority: priority)
        downloads[key] = download
        let previous = ending[key]
        download.task = Task {
            await previous?.value
            await self.run(download, key: key, diskName: diskName)
        }
        return DownloadSubscription(key: key, id: nextSubscriber, updates: updates, buffer: download.buffer)
    }

    /// Leaves a download; the last subscriber to leave stops it.
    func unsubscribe(_ subscription: DownloadSubscription) {
        guard let download = downloads[subscription.key], download.buffer === subscription.buffer else { return }
        guard download.remove(subscription.id) == 0, let task = download.task else { return }
        downloads[subscription.key] = nil
        ending[subscription.key] = task
        task.cancel()
    }

    /// Where every download stands.
    func statuses() -> [DownloadStatus] {
        downloads.values.map { $0.status }.sorted { $0.url.absoluteString < $1.url.absoluteString }
    }

    // MARK: - One download

    /// Downloads the file from where an earlier download stopped, tells the subscribers, and
    /// keeps the file (checked) or what it received (stopped). Runs off the actor, which only
    /// keeps the books.
    private nonisolated func run(_ download: SharedDownload, key: Key, diskName: String) async {
        let file = download.file
        if let (data, validator) = await partial(of: file), data.count < file.bytes {
            _ = download.buffer.append(data)
            download.validator = validator
            download.broadcast(.received(data.count))
        }
        let outcome: Outcome
        do {
            try await queue.acquire(download.place)
            download.markRunning()
            outcome = await fetch(download)
            queue.release()
        } catch {
            outcome = .stopped
        }
        switch outcome {
        case .stopped:
            await keepPartial(of: download)
        case .failed(let error, let keep):
            if keep { await keepPartial(of: download) } else { await forgetPartial(of: file) }
            download.finish(.failure(error))
        case .complete:
            let data = download.buffer.prefix(file.bytes)
            let found = sha256Hex(data)
            await forgetPartial(of: file)
            if found == file.sha256 {
                await disk?.store(data, named: diskName)
                download.finish(.success(data))
            } else {
                download.finish(.failure(.checksum(url: file.url, expected: file.sha256, found: found)))
            }
        }
        await ended(download, key: key)
    }

    private func ended(_ download: SharedDownload, key: Key) {
        if downloads[key] === download { downloads[key] = nil }
        if ending[key] == download.task { ending[key] = nil }
    }

    /// How a download ended.
    private enum Outcome {
        /// Every subscriber left.
        case stopped
        /// `keep`: what it received is worth resuming from (the connection broke).
        case failed(LadderError, keep: Bool)
        /// The whole length arrived; not yet checked.
        case complete
    }

    /// Reads the file's response into the download's buffer, from what it holds on.
    private nonisolated func fetch(_ download: SharedDownload) async -> Outcome {
        let file = download.file
        let buffer = download.buffer
        let resumeFrom = buffer.received
        var headers: [String: String] = [:]
        if resumeFrom > 0 {
            headers["Range"] = "bytes=\(resumeFrom)-"
            if let validator = download.validator { headers["If-Range"] = validator }
        }
        // A 200 answer to a range is the whole file again: its first bytes are compared with
        // those held, not appended.
        var held = 0
        var offset = 0
        var savedScans = download.scanEnds.prefix { $0 <= resumeFrom }.count
        do {
            for try await event in transport.download(TransportRequest(url: file.url, headers: headers)) {
                if Task.isCancelled { return .stopped }
                switch event {
                case .response(let status, let responseHeaders):
                    switch status {
                    case 200:
                        held = resumeFrom
                    case 206 where resumeFrom > 0 && Self.rangeStart(responseHeaders["content-range"]) == resumeFrom:
                        break
                    case 206 where resumeFrom > 0:
                        return .failed(
                            .transport(
                                url: file.url,
                                reason:
                                    "asked for bytes \(resumeFrom) on, the server sent \(responseHeaders["content-range"] ?? "another range")"
                            ), keep: false)
                    default:
                        return .failed(.http(status: status, url: file.url), keep: status >= 500)
                    }
                    download.validator =
                        Self.validator(in: responseHeaders) ?? (status == 206 ? download.validator : nil)
                case .data(var chunk):
                    if offset < held {
                        let overlap = min(chunk.count, held - offset)
                        guard buffer.matches(chunk.prefix(overlap), at: offset) else {
                            return .failed(
                                .transport(url: file.url, reason: "the file differs from the part downloaded before"),
                                keep: false)
                        }
                        offset += overlap
                        chunk = chunk.dropFirst(overlap)
                        if chunk.isEmpty { continue }
                    }
                    offset += chunk.count
                    guard buffer.append(chunk) else {
                        return .failed(
                            .length(url: file.url, expected: file.bytes, found: buffer.received + chunk.count),
                            keep: false)
                    }
                    let received = buffer.received
                    download.broadcast(.received(received))
                    // Each scan's bytes are kept as it completes, for a load after a crash.
                    let scans = download.scanEnds.prefix { $0 <= received }.count
                    if scans > savedScans, received < file.bytes, let disk {
                        savedScans = scans
                        await disk.storePartial(
                            buffer.prefix(received), validator: download.validator, sha256: file.sha256)
                    }
                }
            }
        } catch {
            if Task.isCancelled { return .stopped }
            return .failed(error as? LadderError ?? .transport(url: file.url, reason: "\(error)"), keep: true)
        }
        if Task.isCancelled { return .stopped }
        // A body that ended early is most likely a connection that broke: resumed later.
        guard buffer.received == file.bytes else {
            return .failed(.length(url: file.url, expected: file.bytes, found: buffer.received), keep: true)
        }
        return .complete
    }

    /// The start of a `Content-Range: bytes START-END/LENGTH` header.
    static func rangeStart(_ header: String?) -> Int? {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        return Int(header.dropFirst(6).prefix { $0 != "-" })
    }

    /// What `If-Range` may carry: a strong ETag, or else the Last-Modified date.
    static func validator(in headers: [String: String]) -> String? {
        if let tag = headers["etag"], !tag.hasPrefix("W/") { return tag }
        return headers["last-modified"]
    }

    // MARK: - What stopped downloads received

    private func partial(of file: Rung.File) async -> (Data, String?)? {
        if let disk { return await disk.partial(sha256: file.sha256) }
        return partials.take(file.sha256)
    }

    private func keepPartial(of download: SharedDownload) async {
        let received = download.buffer.received
        guard received > 0, received < download.file.bytes else { return }
        // A copy: the buffer holds the file's whole length.
        let data = download.buffer.prefix(received).withUnsafeBytes { Data($0) }
        if let disk {
            await disk.storePartial(data, validator: download.validator, sha256: download.file.sha256)
        } else {
            partials.keep(data, validator: download.validator, for: download.file.sha256)
        }
    }

    private func forgetPartial(of file: Rung.File) async {
        await disk?.removePartial(sha256: file.sha256)
        _ = partials.take(file.sha256)
    }
}

/// One download of one file and the loads that listen to it.
final class SharedDownload: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`, but `task`, which the download
    // center sets once before the task can run.
    let file: Rung.File
    let scanEnds: [Int]
    let buffer: DownloadBuffer
    /// Its place in the download queue.
    let place: UInt64
    var task: Task<Void, Never>?
    private let lock = NSLock()
    private var subscribers: [UInt64: AsyncStream<DownloadUpdate>.Continuation] = [:]
    private var priority: DownloadPriority
    private var running = false
    private var result: Result<Data, LadderError>?
    private var storedValidator: String?

    init(file: Rung.File, scanEnds: [Int], place: UInt64, priority: DownloadPriority) {
        self.file = file
        self.scanEnds = scanEnds
        self.buffer = DownloadBuffer(capacity: file.bytes)
        self.place = place
        self.priority = priority
    }

    /// The server's validator of the bytes received, for `If-Range`.
    var validator: String? {
        get { lock.withLock { storedValidator } }
        set { lock.withLock { storedValidator = newValue } }
    }

    /// Adds a subscriber and tells it what arrived so far (and the result, when there is one);
    /// true when its priority is higher than the download's was.
    func add(
        _ id: UInt64, _ continuation: AsyncStream<DownloadUpdate>.Continuation, priority: DownloadPriority
    ) -> Bool {
        let (raised, result) = lock.withLock {
            subscribers[id] = continuation
            defer { self.priority = max(self.priority, priority) }
            return (priority > self.priority, self.result)
        }
        let received = buffer.received
        if received > 0 { continuation.yield(.received(received)) }
        if let result {
            continuation.yield(.finished(result))
            continuation.finish()
        }
        return raised
    }

    /// Removes a subscriber; returns how many are left.
    func remove(_ id: UInt64) -> Int {
        let (continuation, left) = lock.withLock { (subscribers.removeValue(forKey: id), subscribers.count) }
        continuation?.finish()
        return left
    }

    func broadcast(_ update: DownloadUpdate) {
        for continuation in lock.withLock({ Array(subscribers.values) }) { continuation.yield(update) }
    }

    /// Tells every subscriber, present and to come, how the download ended.
    func finish(_ result: Result<Data, LadderError>) {
        let continuations = lock.withLock {
            self.result = result
            return Array(subscribers.values)
        }
        for continuation in continuations {
            continuation.yield(.finished(result))
            continuation.finish()
        }
    }

    func markRunning() { lock.withLock { running = true } }

    var status: DownloadStatus {
        lock.withLock {
            DownloadStatus(
                url: file.url, isIndexFile: false, subscribers: subscribers.count, receivedBytes: buffer.received,
                expectedBytes: file.bytes, isRunning: running && result == nil, isVisible: priority >= .visible)
        }
    }
}

/// The first bytes of stopped downloads, kept in memory (when there is no disk cache) up to a
/// number of bytes, the oldest dropped first.
private struct PartialMemory {
    let limit: Int
    private var kept: [String: (data: Data, validator: String?, order: UInt64)] = [:]
    private var order: UInt64 = 0

    init(limit: Int) { self.limit = limit }

    mutating func keep(_ data: Data, validator: String?, for sha256: String) {
        order += 1
        kept[sha256] = (data, validator, order)
        while kept.values.reduce(0, { $0 + $1.data.count }) > limit,
            let oldest = kept.min(by: { $0.value.order < $1.value.order })?.key
        {
            kept[oldest] = nil
        }
    }

    mutating func take(_ sha256: String) -> (Data, String?)? {
        kept.removeValue(forKey: sha256).map { ($0.data, $0.validator) }
    }
}
