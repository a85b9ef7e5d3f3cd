import Foundation
import LadderClient
import LadderManifest
import Testing

/// The client against a real HTTP server on 127.0.0.1 serving a folder that a build wrote.
@Suite("Client", .serialized)
struct LadderClientTests {
    /// A view this large needs every rung up to the full-size one.
    static let large = (width: 4000, height: 4000)

    @Test("a whole ladder arrives in order: placeholder, small_thumb, large_thumb, full, each byte-exact")
    func wholeLadder() async throws {
        let ladder = try ServedLadder(photos: 1)
        // 50 kB/s per connection: each rung's time follows its size (large_thumb ends over half a
        // second after small_thumb, which a loaded machine does not blur), so every rung shows.
        ladder.server.configure { $0.bytesPerSecond = 50_000 }
        let sha1 = try #require(ladder.sha1s.first)
        // One download at a time: the rungs arrive in the order they are asked for, however
        // the machine schedules the server's threads (concurrency has tests of its own).
        let timeline = try await Timeline.record(
            ladder.client(limit: 1).load(.sha1(sha1), width: Self.large.width, height: Self.large.height))

        guard case .placeholder(let hash, let color) = try #require(timeline.events.first?.event) else {
            Issue.record("the first event is not the placeholder: \(String(describing: timeline.events.first?.event))")
            return
        }
        #expect(hash.base64 == ladder.manifest.images[sha1]?.placeholder)
        #expect(color?.description == ladder.manifest.images[sha1]?.averageColor)
        #expect(timeline.rungNames == ["small_thumb", "large_thumb", "full"])
        for name in timeline.rungNames { #expect(timeline.data(of: name) == (try ladder.fileBytes(sha1, name))) }
        #expect(timeline.failures.isEmpty)
    }

    @Test("each rung comes as the smallest of its files the app decodes, checked against that file's SHA-256")
    func smallestDecodableFormat() async throws {
        let ladder = try ServedLadder(photos: 1, formats: ["webp", "avif"])
        let sha1 = try #require(ladder.sha1s.first)
        let variants = try #require(ladder.manifest.images[sha1]?.variants)
        // An app that decodes WebP only gets the WebP of every rung that has one smaller than its
        // JPEG, and never asks for the JPEG or the AVIF of that rung.
        let timeline = try await Timeline.record(
            LadderClient(baseURL: ladder.server.baseURL, formats: ["webp"])
                .load(.sha1(sha1), width: Self.large.width, height: Self.large.height))
        #expect(timeline.rungNames == ["small_thumb", "large_thumb", "full"])
        #expect(timeline.failures.isEmpty)
        var webps = 0
        for case (.rung(let rung, let data, _), _) in timeline.events {
            let variant = try #require(variants[rung.name])
            if let webp = variant.formats?["webp"], webp.bytes < variant.bytes {
                webps += 1
                #expect(rung.format == "webp" && !rung.progressive)
                #expect(data == Data(try ladder.project.read("build/variants/" + webp.path)))
                #expect(!ladder.server.requests.contains("/" + variant.path))
                #expect(!ladder.server.requests.contains { $0 == "/" + (variant.formats?["avif"]?.path ?? "") })
            } else {
                #expect(rung.format == "jpeg")
                #expect(data == (try ladder.fileBytes(sha1, rung.name)))
            }
        }
        #expect(webps >= 2, "the generated photo's thumbnails have WebP siblings")
        // An app that decodes no other format gets the JPEGs, the full one progressive.
        let jpegs = try await Timeline.record(
            LadderClient(baseURL: ladder.server.baseURL, formats: [])
                .load(.sha1(sha1), width: Self.large.width, height: Self.large.height))
        for case (.rung(let rung, let data, _), _) in jpegs.events {
            #expect(rung.format == "jpeg" && rung.progressive == (rung.name == "full"))
            #expect(data == (try ladder.fileBytes(sha1, rung.name)))
        }
        #expect(jpegs.rungNames == ["small_thumb", "large_thumb", "full"])
    }

    @Test("a small view stops at the rung it needs, and the manifest resolves source paths")
    func stopsAtTheNeededRung() async throws {
        let ladder = try ServedLadder(photos: 1)
        let client = LadderClient(manifest: ladder.manifest, baseURL: ladder.server.baseURL)
        let timeline = try await Timeline.record(client.load(.source("photos/p0.jpg"), width: 300, height: 300))
        #expect(timeline.rungNames.last == "large_thumb")
        #expect(
            !ladder.server.requests.contains { $0.contains("full") || $0 == ladder.urlPath(ladder.sha1s[0], "full") })
        await #expect(throws: LadderError.self) {
            for try await _ in client.load(.source("photos/none.jpg"), width: 300, height: 300) {}
        }
    }

    @Test("a client of a manifest named photos.json reads the index in photos.index/")
    func indexOfANamedManifest() async throws {
        let ladder = try ServedLadder(photos: 1, tiny: true, manifestName: "photos.json")
        let sha1 = try #require(ladder.sha1s.first)
        let client = LadderClient(baseURL: ladder.server.baseURL, manifestName: "photos.json")
        let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 40, height: 30))
        // Every variant of a 40 x 30 photo is 40 x 30: the first (by name) covers the view.
        let rung = try #require(timeline.rungNames.first)
        #expect(timeline.rungNames.count == 1)
        #expect(timeline.data(of: rung) == (try ladder.fileBytes(sha1, rung)))
        #expect(ladder.server.requests.contains("/photos.index/layout.json"))
        #expect(ladder.server.requests.contains("/photos.index/\(sha1.prefix(2)).json"))
        #expect(!ladder.server.requests.contains { $0.hasPrefix("/index/") })
    }

    @Test("cancelling a load mid-download stops the transfer and caches nothing partial")
    func cancellation() async throws {
        let ladder = try ServedLadder(photos: 2)
        // Slow enough that no larger rung can finish before the cancel reaches it.
        ladder.server.configure { $0.bytesPerSecond = 20_000 }
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
        let client = ladder.client(cache: cache, limit: 3)
        let sha1 = ladder.sha1s[0]
        let fullPath = ladder.urlPath(sha1, "full")

        // Stop listening as soon as the small thumbnail is shown, while the others download.
        for try await event in client.load(.sha1(sha1), width: Self.large.width, height: Self.large.height) {
            if case .rung(let rung, _, _) = event, rung.name == "small_thumb" { break }
        }
        // The server notices the client went away from every larger rung it had started
        // sending (one may still have been waiting for a download slot, never requested).
        let larger = [fullPath, ladder.urlPath(sha1, "large_thumb")]
        let started = Set(ladder.server.requests.filter(larger.contains))
        var waited = 0.0
        while !started.isSubset(of: Set(ladder.server.abandoned)) && waited < 10 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 0.1
        }
        #expect(!started.isEmpty)
        #expect(started.isSubset(of: Set(ladder.server.abandoned)), "\(started) \(ladder.server.abandoned)")
        #expect(await cache.storedNames() == [sha1 + "-small_thumb"])

        // The download slots were given back: another image loads with the same client.
        ladder.server.configure { $0.bytesPerSecond = nil }
        let other = try await Timeline.record(client.load(.sha1(ladder.sha1s[1]), width: 100, height: 100))
        #expect(other.rungNames == ["small_thumb"])
    }

    @Test("on a throttled connection the rungs arrive in order, each about when its bytes allow")
    func throttled() async throws {
        let ladder = try ServedLadder(photos: 1)
        let rate = 150_000
        ladder.server.configure { $0.bytesPerSecond = rate }
        let sha1 = ladder.sha1s[0]
        let timeline = try await Timeline.record(
            ladder.client().load(.sha1(sha1), width: Self.large.width, height: Self.large.height))
        #expect(timeline.rungNames == ["small_thumb", "large_thumb", "full"])
        let variants = try #require(ladder.manifest.images[sha1]?.variants)
        for name in ["small_thumb", "large_thumb", "full"] {
            let bytes = try #require(variants[name]?.bytes)
            let arrived = try #require(timeline.seconds(of: name))
            // Each rung has its own connection: it needs its bytes at the rate, plus the
            // index file's download and a second's slack for a busy machine.
            let due = Double(bytes) / Double(rate) + 1.5
            #expect(arrived <= due, "\(name) (\(bytes) bytes) arrived at \(arrived) s, due by \(due) s")
        }
        let small = try #require(timeline.seconds(of: "small_thumb"))
        let full = try #require(timeline.seconds(of: "full"))
        #expect(small < full / 3, "the thumbnail must not wait for the full-size file")

        // The progressive file shows scan by scan: each a prefix of the file up to a scan end,
        // after large_thumb and before the whole file.
        let ends = try #require(variants["full"]?.scanEnds)
        let fullBytes = try ladder.fileBytes(sha1, "full")
        let scans = timeline.events.compactMap { item -> (data: Data, count: Int, seconds: Double)? in
            if case .scans(_, let data, let count) = item.event { (data, count, item.seconds) } else { nil }
        }
        #expect(!scans.isEmpty, "no scan arrived before the whole file")
        #expect(scans.map(\.count) == scans.map(\.count).sorted() && Set(scans.map(\.count)).count == scans.count)
        for scan in scans {
            #expect(scan.data == fullBytes.prefix(ends[scan.count - 1]), "scan \(scan.count) is not the file's prefix")
            #expect(scan.seconds >= (timeline.seconds(of: "large_thumb") ?? .infinity) && scan.seconds <= full)
        }
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
        // Each load starts both rungs' downloads at once; the shared limit must serve them in
        // the order they were queued, whichever task reaches it first. Busy tasks keep the
        // threads that run them occupied, as a loaded app (or test run) does.
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
            // A cache, empty: each rung looks there before it queues.
            let cacheFolder = TemporaryDirectory("ladder-cache")
            let client = LadderClient(
                manifest: ladder.manifest, baseURL: ladder.server.baseURL,
                cache: DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000), maxConcurrentDownloads: 1,
                transport: transport)
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
        #expect(await cache.storedNames() == [sha1 + "-large_thumb"])
    }

    @Test("the disk cache stays under its limit, drops the least recently used, and serves hits without the network")
    func cacheLimit() async throws {
        let ladder = try ServedLadder(photos: 3)
        let smallest = ladder.sha1s.compactMap { ladder.manifest.images[$0]?.variants["large_thumb"]?.bytes }
        // Room for two large thumbnails and nothing more.
        let limit = (smallest.max() ?? 0) * 2 + (smallest.min() ?? 0) / 2
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: limit)
        let client = ladder.client(cache: cache)
        // 600 pixels needs large_thumb; small_thumb is cancelled or dropped once it is there.
        for sha1 in ladder.sha1s {
            let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
            #expect(timeline.rungNames.last == "large_thumb")
        }
        let sizes = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path("cache")).map {
            try FileManager.default.attributesOfItem(atPath: cacheFolder.path("cache/" + $0))[.size] as? Int ?? 0
        }
        #expect(sizes.reduce(0, +) <= limit)
        let stored = await cache.storedNames()
        #expect(!stored.contains(ladder.sha1s[0] + "-large_thumb"), "the least recently used is dropped first")
        #expect(stored.contains(ladder.sha1s[2] + "-large_thumb"))

        let requestsBefore = ladder.server.requests.count
        let again = try await Timeline.record(client.load(.sha1(ladder.sha1s[2]), width: 600, height: 600))
        #expect(again.events.contains { if case .rung(_, _, true) = $0.event { true } else { false } })
        #expect(ladder.server.requests.count == requestsBefore, "a cache hit needs no download")
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
}

/// URLSession's transport, remembering the path of every URL asked for, in order.
final class RecordingTransport: LadderTransport, @unchecked Sendable {
    // @unchecked: `paths` is only touched under `lock`.
    private let lock = NSLock()
    private var paths: [String] = []
    private let transport = URLSessionTransport()

    var requested: [String] { lock.withLock { paths } }

    func download(_ url: URL) -> AsyncThrowingStream<Data, any Error> {
        lock.withLock { paths.append(url.path) }
        return transport.download(url)
    }
}
