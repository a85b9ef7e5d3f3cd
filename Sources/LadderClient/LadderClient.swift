public import Foundation
public import LadderManifest

/// An image the client loads: by the SHA1 of its source file, or by its source path as the
/// manifest lists it ("photos/cat.jpg"; needs a client made with the manifest).
public enum ImageReference: Sendable, Hashable {
    case sha1(String)
    case source(String)
}

/// Walks ladder's variants for an app: for an image and the size it is shown at, it yields the
/// placeholder, then each rung up to the one that size needs, then, for a progressive file,
/// the bytes up to each scan end.
///
/// Every rung up to the needed one downloads at once (within a limit shared by every image the
/// client loads), smaller ones queued first; a rung that completes cancels the lower rungs
/// still downloading, and rungs never arrive out of order: a lower rung that finishes after a
/// higher one is dropped. Each file is checked against the manifest's SHA-256 before it is
/// yielded or cached; a file that fails (or a 404) is reported as `.failed`, whenever its
/// failure is known, and the next rung carries on. It depends on Foundation and LadderManifest only: the app decodes.
///
/// ```swift
/// let client = LadderClient(baseURL: URL(string: "https://cdn.example.com/photos/")!)
/// for try await event in client.load(.sha1(sha1), width: 750, height: 750) {
///     if case .rung(_, let data, _) = event { imageView.image = UIImage(data: data) }
/// }
/// ```
public final class LadderClient: Sendable {
    public let baseURL: URL
    public let cache: DiskCache?
    /// The formats besides JPEG that the app decodes: each rung comes as the smallest of its
    /// files in these formats ("webp", "avif", "jxl"), the JPEG when none is smaller.
    public let formats: Set<String>
    private let transport: any LadderTransport
    private let limiter: DownloadLimiter
    private let catalog: ImageCatalog

    /// A client that resolves images through the index files beside the manifest at `baseURL`
    /// (the folder that holds the manifest): it reads the index's layout once, then one small
    /// prefix file for each prefix of the images it loads. `manifestName` names the index
    /// folder: `index/` for manifest.json, `NAME.index/` for NAME.json.
    public convenience init(
        baseURL: URL, manifestName: String = ManifestIndex.defaultManifestName, cache: DiskCache? = nil,
        maxConcurrentDownloads: Int = 6, formats: Set<String> = LadderClient.platformFormats,
        transport: any LadderTransport = URLSessionTransport()
    ) {
        self.init(
            manifest: nil, manifestName: manifestName, baseURL: baseURL, cache: cache,
            maxConcurrentDownloads: maxConcurrentDownloads, formats: formats, transport: transport)
    }

    /// A client for an app that already has the whole manifest; it also resolves source paths.
    /// With `manifest` nil, it reads the index of the manifest named `manifestName` instead.
    public init(
        manifest: Manifest?, manifestName: String = ManifestIndex.defaultManifestName, baseURL: URL,
        cache: DiskCache? = nil, maxConcurrentDownloads: Int = 6, formats: Set<String> = LadderClient.platformFormats,
        transport: any LadderTransport = URLSessionTransport()
    ) {
        self.baseURL = baseURL
        self.cache = cache
        self.formats = formats
        self.transport = transport
        self.limiter = DownloadLimiter(limit: maxConcurrentDownloads)
        self.catalog = ImageCatalog(
            manifest: manifest, manifestName: manifestName, baseURL: baseURL, transport: transport, limiter: limiter)
    }

    /// Loads `image` for a view of `width` x `height` pixels (points times the screen's scale)
    /// that shows all of it. The sequence throws only when the image cannot be resolved; it ends
    /// when the needed rung has arrived or every rung was tried. Stop iterating (or cancel the
    /// task) to cancel what is still downloading.
    public func load(_ image: ImageReference, width: Int, height: Int) -> AsyncThrowingStream<LadderEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LadderEvent, any Error>.makeStream()
        let task = Task {
            do {
                let (sha1, entry) = try await catalog.entry(for: image)
                if let text = entry.placeholder, let hash = ThumbHash(base64: text) {
                    continuation.yield(.placeholder(hash, averageColor: entry.averageColor.flatMap(RGBColor.init)))
                }
                let rungs = ImageCatalog.rungs(
                    of: entry, width: width, height: height, baseURL: baseURL, formats: formats)
                await walk(rungs, sha1: sha1, into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: - The walk

    /// What a rung's download reports to the walk.
    private enum Message: Sendable {
        case scans(Int, Data, Int)
        case done(Int, Result<(Data, Bool), LadderError>)
        case cancelled(Int)
    }

    /// Downloads every rung at once and yields in order, as described on the type.
    private func walk(
        _ rungs: [Rung], sha1: String, into output: AsyncThrowingStream<LadderEvent, any Error>.Continuation
    ) async {
        guard !rungs.isEmpty else { return }
        let (messages, inbox) = AsyncStream<Message>.makeStream()
        // Places in the download queue in the rungs' order, before any task runs: the tasks
        // may reach the limiter in any order.
        let places = await limiter.reserve(rungs.count)
        let tasks = rungs.enumerated().map { index, rung in
            Task {
                let message = await self.fetch(rung, sha1: sha1, place: places[index]) { data, scans in
                    inbox.yield(.scans(index, data, scans))
                }
                inbox.yield(message(index))
            }
        }
        await withTaskCancellationHandler {
            // The highest rung shown whole, and which rungs are settled (shown, failed or dropped).
            var shown = -1
            var settled = [Bool](repeating: false, count: rungs.count)
            var heldScans: [Int: (Data, Int)] = [:]
            var remaining = rungs.count
            for await message in messages {
                switch message {
                case .scans(let index, let data, let scans):
                    guard index > shown, !settled[index] else { continue }
                    if settled[..<index].allSatisfy({ $0 }) {
                        output.yield(.scans(rungs[index], data: data, scans: scans))
                    } else {
                        heldScans[index] = (data, scans)
                    }
                    continue
                case .done(let index, .success((let data, let fromCache))):
                    remaining -= 1
                    settled[index] = true
                    heldScans[index] = nil
                    // A lower rung that finishes after a higher one is dropped.
                    if index > shown {
                        output.yield(.rung(rungs[index], data: data, fromCache: fromCache))
                        shown = index
                        // Lower rungs are no longer worth their bytes.
                        for lower in 0..<index where !settled[lower] {
                            tasks[lower].cancel()
                            settled[lower] = true
                        }
                    }
                case .done(let index, .failure(let error)):
                    remaining -= 1
                    settled[index] = true
                    heldScans[index] = nil
                    // Reported whenever it happens, even after a higher rung was shown: a
                    // missing or tampered file is worth knowing about either way.
                    output.yield(.failed(rungs[index], error))
                case .cancelled:
                    remaining -= 1
                }
                // Scans held back for a rung whose lower rungs are now all settled.
                for (index, held) in heldScans.sorted(by: { $0.key < $1.key })
                where index > shown && settled[..<index].allSatisfy({ $0 }) {
                    output.yield(.scans(rungs[index], data: held.0, scans: held.1))
                    heldScans[index] = nil
                }
                if remaining == 0 { break }
            }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
        inbox.finish()
    }

    /// One rung: from the cache when it holds the file, else downloaded within the limit once
    /// its `place` in the queue comes, reporting each scan end passed, then checked and cached.
    private func fetch(
        _ rung: Rung, sha1: String, place: UInt64, onScans: @Sendable (Data, Int) -> Void
    ) async -> @Sendable (Int) -> Message {
        if let cached = await cache?.data(sha1: sha1, variant: rung.name, sha256: rung.sha256) {
            await limiter.forfeit(place)
            return { .done($0, .success((cached, true))) }
        }
        do {
            try await limiter.acquire(place)
        } catch {
            return { .cancelled($0) }
        }
        let result = await download(rung, onScans: onScans)
        await limiter.release()
        switch result {
        case .none:
            return { .cancelled($0) }
        case .some(.success(let data)):
            await cache?.store(data, sha1: sha1, variant: rung.name)
            return { .done($0, .success((data, false))) }
        case .some(.failure(let error)):
            return { .done($0, .failure(error)) }
        }
    }

    /// Downloads and checks one file; nil when cancelled.
    private func download(_ rung: Rung, onScans: @Sendable (Data, Int) -> Void) async -> Result<Data, LadderError>? {
        var data = Data()
        // Scan ends short of the file's end: each is worth showing before the whole file.
        let scanEnds = (rung.progressive ? rung.scanEnds ?? [] : []).filter { $0 < rung.bytes }
        var scansShown = 0
        do {
            for try await chunk in transport.download(rung.url) {
                if Task.isCancelled { return nil }
                data.append(chunk)
                if data.count > rung.bytes { break }
                let scans = scanEnds.prefix { $0 <= data.count }.count
                if scans > scansShown {
                    scansShown = scans
                    onScans(data.prefix(scanEnds[scans - 1]), scans)
                }
            }
        } catch let error as LadderError {
            return Task.isCancelled ? nil : .failure(error)
        } catch {
            return Task.isCancelled ? nil : .failure(.transport(url: rung.url, reason: "\(error)"))
        }
        if Task.isCancelled { return nil }
        guard data.count == rung.bytes else {
            return .failure(.length(url: rung.url, expected: rung.bytes, found: data.count))
        }
        let found = sha256Hex(data)
        guard found == rung.sha256 else {
            return .failure(.checksum(url: rung.url, expected: rung.sha256, found: found))
        }
        return .success(data)
    }
}
