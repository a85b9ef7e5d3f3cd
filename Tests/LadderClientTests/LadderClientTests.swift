import Foundation
import LadderClient
import LadderManifest
import Testing

/// The client against a real HTTP server on 127.0.0.1 serving a folder that a build wrote.
@Suite("Client", .serialized)
struct LadderClientTests {
    /// A view this large needs every rung up to the full-size one.
    static let large = (width: 4000, height: 4000)

    @Test("a whole ladder arrives in order: placeholder, small_thumb, large_thumb, full, each at its size")
    func wholeLadder() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = try #require(ladder.sha1s.first)
        // One download at a time: the rungs arrive in the order they are asked for, however
        // the machine schedules the server's threads (concurrency has tests of its own).
        let timeline = try await Timeline.record(
            ladder.client(limit: 1).load(.sha1(sha1), width: Self.large.width, height: Self.large.height))

        let first = try #require(timeline.frames.first)
        guard case .placeholder(let hash, let color) = first.stage else {
            Issue.record("the first frame is not the placeholder: \(first.stage)")
            return
        }
        #expect(hash.base64 == ladder.manifest.images[sha1]?.placeholder)
        #expect(color?.description == ladder.manifest.images[sha1]?.averageColor)
        #expect(first.picture.width > 0 && first.picture.width <= 32 && first.rung == nil)
        #expect(timeline.rungNames == ["small_thumb", "large_thumb", "full"])
        for name in timeline.rungNames {
            let variant = try #require(ladder.manifest.images[sha1]?.variants[name])
            let frame = try #require(timeline.frame(of: name))
            #expect(frame.picture.width == variant.width && frame.picture.height == variant.height, "\(name)")
            #expect(frame.format == .jpeg)
            #expect(frame.isFinal == (name == "full"))
        }
        #expect(timeline.failures.isEmpty)
    }

    @Test("a small view stops at the rung it needs, and the manifest resolves source paths")
    func stopsAtTheNeededRung() async throws {
        let ladder = try ServedLadder(photos: 1)
        let client = LadderClient(baseURL: ladder.server.baseURL, manifest: ladder.manifest)
        let timeline = try await Timeline.record(client.load(.source("photos/p0.jpg"), width: 300, height: 300))
        #expect(timeline.rungNames.last == "large_thumb")
        #expect(timeline.frames.last?.isFinal == true)
        #expect(!ladder.server.requests.contains(ladder.urlPath(ladder.sha1s[0], "full")))
        await #expect(throws: LadderError.self) {
            for try await _ in client.load(.source("photos/none.jpg"), width: 300, height: 300) {}
        }
    }

    @Test("an aspect-fill view loads the rung that covers it, larger than an aspect-fit view of that size needs")
    func aspectFill() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        // The 4:3 photo fills 200 x 200 at 267 x 200 (small_thumb is 160 x 120), and fits at 200 x 150.
        let fill = try await Timeline.record(
            ladder.client().load(.sha1(sha1), width: 200, height: 200, fit: .aspectFill))
        let fit = try await Timeline.record(ladder.client().load(.sha1(sha1), width: 200, height: 200, fit: .aspectFit))
        #expect(fill.rungNames.last == "large_thumb")
        #expect(fit.rungNames.last == "large_thumb", "160 pixels are too few for 200")
        let narrow = try await Timeline.record(
            ladder.client().load(.sha1(sha1), width: 150, height: 150, fit: .aspectFit))
        let narrowFill = try await Timeline.record(
            ladder.client().load(.sha1(sha1), width: 150, height: 150, fit: .aspectFill))
        #expect(narrow.rungNames.last == "small_thumb")
        #expect(narrowFill.rungNames.last == "large_thumb", "150 x 150 filled shows the photo 200 x 150")
    }

    @Test("a client of a manifest named photos.json reads the index in photos.index/")
    func indexOfANamedManifest() async throws {
        let ladder = try ServedLadder(photos: 1, tiny: true, manifestName: "photos.json")
        let sha1 = try #require(ladder.sha1s.first)
        var configuration = LadderClient.Configuration()
        configuration.manifestName = "photos.json"
        let client = LadderClient(baseURL: ladder.server.baseURL, configuration: configuration)
        let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 40, height: 30))
        // Every variant of a 40 x 30 photo is 40 x 30: the first (by name) covers the view.
        #expect(timeline.rungNames.count == 1)
        #expect(ladder.server.requests.contains("/photos.index/layout.json"))
        #expect(ladder.server.requests.contains("/photos.index/\(sha1.prefix(2)).json"))
        #expect(!ladder.server.requests.contains { $0.hasPrefix("/index/") })
    }

    @Test("cancelling a load mid-download stops the transfer and stores no whole file that was not checked")
    func cancellation() async throws {
        let ladder = try ServedLadder(photos: 2)
        // Slow enough that no larger rung can finish before the cancel reaches it, even on a
        // loaded machine: at 20,000 bytes a second the large thumbnail once arrived whole first,
        // the whole test suite running beside it.
        ladder.server.configure { $0.bytesPerSecond = 5_000 }
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
        let client = ladder.client(cache: cache, limit: 3)
        let sha1 = ladder.sha1s[0]

        // Stop listening as soon as the small thumbnail is shown, while the others download.
        for try await event in client.load(.sha1(sha1), width: Self.large.width, height: Self.large.height) {
            if case .frame(let frame) = event, frame.rung?.name == "small_thumb" { break }
        }
        // The server notices the client went away from every larger rung it had started
        // sending (one may still have been waiting for a download slot, never requested).
        let larger = [ladder.urlPath(sha1, "full"), ladder.urlPath(sha1, "large_thumb")]
        let started = Set(ladder.server.requests.filter(larger.contains))
        try await waitUntil { started.isSubset(of: Set(ladder.server.abandoned)) }
        #expect(!started.isEmpty)
        #expect(started.isSubset(of: Set(ladder.server.abandoned)), "\(started) \(ladder.server.abandoned)")
        try await waitUntil { await client.downloadsInProgress().isEmpty }
        // Whole files only once checked; what the others received is kept to resume from.
        #expect(
            await cache.storedNames().filter { !$0.hasPrefix("index-") && !$0.hasPrefix("partial-") } == [
                sha1 + "-small_thumb"
            ])

        // The download slots were given back: another image loads with the same client.
        ladder.server.configure { $0.bytesPerSecond = nil }
        let other = try await Timeline.record(client.load(.sha1(ladder.sha1s[1]), width: 100, height: 100))
        #expect(other.rungNames == ["small_thumb"])
    }

    @Test("on a throttled connection the full image shows scan by scan, after large_thumb and before the whole file")
    func throttled() async throws {
        let ladder = try ServedLadder(photos: 1)
        ladder.server.configure { $0.bytesPerSecond = 150_000 }
        let sha1 = ladder.sha1s[0]
        let timeline = try await Timeline.record(
            ladder.client(limit: 1).load(.sha1(sha1), width: Self.large.width, height: Self.large.height))
        #expect(timeline.rungNames == ["small_thumb", "large_thumb", "full"])
        let scans = timeline.scanFrames
        let ends = try #require(ladder.manifest.images[sha1]?.variants["full"]?.scanEnds)
        #expect(!scans.isEmpty, "no scan was drawn before the whole file")
        #expect(scans.map(\.scans) == scans.map(\.scans).sorted() && Set(scans.map(\.scans)).count == scans.count)
        #expect(scans.allSatisfy { $0.scans < ends.count }, "the last scan is the whole file, checked first")
        // In the order of events: large_thumb, then the scans, then the whole file.
        let stages = timeline.frames.map { frame -> String in
            switch frame.stage {
            case .placeholder: "placeholder"
            case .scans: "scans"
            case .whole: frame.rung?.name ?? "?"
            }
        }
        let firstScan = try #require(stages.firstIndex(of: "scans"))
        #expect(stages.firstIndex(of: "large_thumb").map { $0 < firstScan } == true)
        #expect(stages.firstIndex(of: "full").map { $0 > firstScan } == true)
        for scan in scans { #expect(scan.frame.rung?.name == "full" && scan.frame.isFinal == false) }
    }

    @Test("a 404 for one rung is reported and the next rung is used")
    func missingRung() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        ladder.server.configure { $0.missing = [ladder.urlPath(sha1, "large_thumb")] }
        // One download at a time, so that the full variant cannot complete (and cancel the
        // lower rung, which is then no failure) before the 404 is read.
        let timeline = try await Timeline.record(
            ladder.client(limit: 1).load(.sha1(sha1), width: Self.large.width, height: Self.large.height))
        #expect(timeline.rungNames.last == "full")
        #expect(!timeline.rungNames.contains("large_thumb"))
        let failure = try #require(timeline.failures.first)
        #expect(failure.0 == "large_thumb")
        guard case .http(let status, _) = failure.1 else {
            Issue.record("expected an HTTP error, got \(failure.1)")
            return
        }
        #expect(status == 404)
    }

    @Test("with one download at a time, the smaller rung is always asked for first")
    func smallerRungQueuedFirst() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = try #require(ladder.sha1s.first)
        let small = ladder.urlPath(sha1, "small_thumb")
        let large = ladder.urlPath(sha1, "large_thumb")
        // Each load subscribes to both rungs' downloads at once; the shared limit must serve
        // them in the order they were queued, whichever task reaches it first. Busy tasks keep
        // the threads that run them occupied, as a loaded app (or test run) does.
        let busy = (0..<4).map { _ in
            Task.detached {
                var count = 0
                while !Task.isCancelled {
                    count &+= 1
                    if count % 100_000 == 0 { await Task.yield() }
                }
            }
        }
        defer { for task in busy { task.cancel() } }
        for attempt in 0..<40 {
            let transport = RecordingTransport()
            let cacheFolder = TemporaryDirectory("ladder-cache")
            var configuration = LadderClient.Configuration()
            // A cache, empty: each rung looks there before it queues.
            configuration.diskCache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
            configuration.maxConcurrentDownloads = 1
            configuration.transport = transport
            let client = LadderClient(
                baseURL: ladder.server.baseURL, manifest: ladder.manifest, configuration: configuration)
            _ = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
            let requested = transport.requested
            #expect(requested.first == small, "load \(attempt) asked for \(requested) (large_thumb is \(large))")
            if requested.first != small { break }
        }
    }

    @Test("a tampered rung is reported, not cached, and the next rung is used")
    func tamperedRung() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        var tampered = [UInt8](try ladder.fileBytes(sha1, "small_thumb"))
        tampered[tampered.count / 2] ^= 0x55
        ladder.server.configure { $0.replaced = [ladder.urlPath(sha1, "small_thumb"): tampered] }
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
        // One download at a time, as for the 404: the tampered rung is checked before the next.
        let timeline = try await Timeline.record(
            ladder.client(cache: cache, limit: 1).load(.sha1(sha1), width: 600, height: 600))
        #expect(timeline.rungNames == ["large_thumb"])
        let failure = try #require(timeline.failures.first)
        #expect(failure.0 == "small_thumb")
        guard case .checksum = failure.1 else {
            Issue.record("expected a checksum error, got \(failure.1)")
            return
        }
        #expect(await cache.storedNames().filter { !$0.hasPrefix("index-") } == [sha1 + "-large_thumb"])
    }

    @Test("500 images requested at once never exceed the download limit, and all arrive")
    func manyImages() async throws {
        let ladder = try ServedLadder(photos: 500, tiny: true)
        // 20 ms before each response: downloads overlap, as on a real network.
        ladder.server.configure { $0.latency = 20_000 }
        let limit = 4
        let client = ladder.client(limit: limit)
        let shown = try await withThrowingTaskGroup(of: String?.self) { group in
            for sha1 in ladder.sha1s {
                group.addTask {
                    let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 40, height: 40))
                    return timeline.rungNames.last
                }
            }
            var names: [String?] = []
            for try await name in group { names.append(name) }
            return names
        }
        #expect(ladder.sha1s.count == 500)
        #expect(shown.count == 500)
        // Variants of a photo this small all have its size: the first one covers the view.
        #expect(shown.filter { $0 == nil }.isEmpty, "every load ends with a whole rung")
        #expect(ladder.server.peakConcurrency <= limit)
        #expect(ladder.server.peakConcurrency == limit, "the limit was reached, so it was what held them back")
    }

    @Test("the client's URLSession is invalidated and released with the client")
    func sessionReleased() async throws {
        let ladder = try ServedLadder(photos: 1, tiny: true)
        weak var client: LadderClient?
        weak var delegate: (any URLSessionDelegate)?
        do {
            let transport = URLSessionTransport()
            delegate = transport.session.delegate
            var configuration = LadderClient.Configuration()
            configuration.transport = transport
            let made = LadderClient(baseURL: ladder.server.baseURL, configuration: configuration)
            client = made
            _ = try await Timeline.record(made.load(.sha1(ladder.sha1s[0]), width: 40, height: 40))
            #expect(delegate != nil, "the session holds its delegate while it lives")
        }
        try await waitUntil { client == nil && delegate == nil }
        #expect(client == nil, "the client is released once its loads are done")
        #expect(delegate == nil, "the session let go of its delegate: it was invalidated")
    }
}

/// Waits until `condition` holds, checking after each of up to 200 short sleeps: for what
/// another thread (the server's, the session's) does in its own time. Tests assert the
/// condition afterwards.
func waitUntil(_ condition: () async -> Bool) async throws {
    for _ in 0..<200 {
        if await condition() { return }
        try await Task.sleep(nanoseconds: 50_000_000)
    }
}

/// URLSession's transport, remembering the path of every URL asked for, in order.
final class RecordingTransport: LadderTransport, @unchecked Sendable {
    // @unchecked: `paths` is only touched under `lock`.
    private let lock = NSLock()
    private var paths: [String] = []
    private let transport = URLSessionTransport()

    var requested: [String] { lock.withLock { paths } }

    func download(_ request: TransportRequest) -> AsyncThrowingStream<TransportEvent, any Error> {
        lock.withLock { paths.append(request.url.path) }
        return transport.download(request)
    }
}
