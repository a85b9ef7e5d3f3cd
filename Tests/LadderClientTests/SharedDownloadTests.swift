import Foundation
import LadderClient
import LadderManifest
import Testing

/// Loads that share downloads, queue by priority, and resume where a download stopped.
@Suite("Client downloads", .serialized)
struct SharedDownloadTests {
    /// Starts two loads of one image for a 4000-pixel view (every rung) with no cache, both
    /// waiting for the index file and then for every rung (held at the server), and returns
    /// once both subscribe to each rung's download.
    static func twoLoads(
        of ladder: ServedLadder, _ client: LadderClient
    ) async throws -> (first: Task<Timeline, any Error>, second: Task<Timeline, any Error>) {
        let sha1 = ladder.sha1s[0]
        let rungs = ["small_thumb", "large_thumb", "full"].map { ladder.urlPath(sha1, $0) }
        ladder.server.configure { $0.held = Set(rungs + [ladder.indexPath(sha1)]) }
        let first = Task { try await Timeline.record(client.load(.sha1(sha1), width: 4000, height: 4000)) }
        let second = Task { try await Timeline.record(client.load(.sha1(sha1), width: 4000, height: 4000)) }
        try await waitUntil { ladder.server.requests.contains(ladder.indexPath(sha1)) }
        ladder.server.configure { $0.held.remove(ladder.indexPath(sha1)) }
        try await waitUntil {
            let downloads = await client.downloadsInProgress().filter { !$0.isIndexFile }
            return downloads.count == 3 && downloads.allSatisfy { $0.subscribers == 2 }
        }
        return (first, second)
    }

    @Test("two loads of one image make one request per rung, and both draw every rung")
    func oneRequestPerRung() async throws {
        let ladder = try ServedLadder(photos: 1)
        let client = ladder.client()
        let (first, second) = try await Self.twoLoads(of: ladder, client)
        #expect(await client.downloadsInProgress().map(\.subscribers) == [2, 2, 2], "one download per rung")
        ladder.server.configure { $0.held = [] }
        let timelines = [try await first.value, try await second.value]
        for timeline in timelines {
            #expect(timeline.rungNames.last == "full")
            #expect(timeline.failures.isEmpty)
        }
        let sha1 = ladder.sha1s[0]
        for name in ["small_thumb", "large_thumb", "full"] {
            #expect(ladder.server.requests.filter { $0 == ladder.urlPath(sha1, name) }.count == 1, "\(name)")
        }
        #expect(ladder.server.requests.filter { $0 == ladder.indexPath(sha1) }.count == 1)
    }

    @Test("cancelling one of two loads that share downloads leaves the other complete")
    func cancelOneOfTwo() async throws {
        let ladder = try ServedLadder(photos: 1)
        let client = ladder.client()
        let (first, second) = try await Self.twoLoads(of: ladder, client)
        first.cancel()
        try await waitUntil { await client.downloadsInProgress().allSatisfy { $0.subscribers == 1 } }
        #expect(await client.downloadsInProgress().map(\.subscribers) == [1, 1, 1])
        ladder.server.configure { $0.held = [] }
        let timeline = try await second.value
        let sha1 = ladder.sha1s[0]
        #expect(timeline.rungNames.last == "full")
        #expect(timeline.frame(of: "full")?.isFinal == true)
        #expect(timeline.failures.isEmpty)
        #expect(ladder.server.requests.filter { $0 == ladder.urlPath(sha1, "full") }.count == 1)
        #expect(!ladder.server.abandoned.contains(ladder.urlPath(sha1, "full")), "the shared download went on")
    }

    @Test("with one download slot, a visible image's placeholder comes before a prefetched image's rung")
    func visibleBeforePrefetch() async throws {
        let ladder = try ServedLadder(photos: 8)
        // Three images whose index files differ, so that each placeholder needs a download.
        var chosen: [String] = []
        for sha1 in ladder.sha1s where !chosen.contains(where: { $0.prefix(2) == sha1.prefix(2) }) {
            chosen.append(sha1)
        }
        try #require(chosen.count >= 3)
        let (busy, prefetched, visible) = (chosen[0], chosen[1], chosen[2])
        let client = ladder.client(limit: 1)
        func queued(_ path: String) async -> Bool {
            await client.downloadsInProgress().contains { $0.url.path == path && !$0.isRunning }
        }
        // The only slot is busy with the first image's thumbnail, held at the server.
        ladder.server.configure {
            $0.held = [ladder.urlPath(busy, "small_thumb"), ladder.indexPath(prefetched)]
        }
        let first = Task { try await Timeline.record(client.load(.sha1(busy), width: 100, height: 100)) }
        try await waitUntil { ladder.server.requests.contains(ladder.urlPath(busy, "small_thumb")) }
        // The prefetch queues its index file first, the visible load after it.
        client.prefetch([.sha1(prefetched)], width: 100, height: 100)
        try await waitUntil { await queued(ladder.indexPath(prefetched)) }
        let load = Task { try await Timeline.record(client.load(.sha1(visible), width: 100, height: 100)) }
        try await waitUntil { await queued(ladder.indexPath(visible)) }
        let prefetchQueued = await queued(ladder.indexPath(prefetched))
        let visibleQueued = await queued(ladder.indexPath(visible))
        #expect(prefetchQueued && visibleQueued, "both index files wait for the slot")

        // The slot frees: the visible image's index file goes first, though queued last. Its
        // placeholder shows (its rung is queued just after), while the prefetched image's index
        // file is held, so its rung cannot have been asked for.
        ladder.server.configure { $0.held.remove(ladder.urlPath(busy, "small_thumb")) }
        try await waitUntil {
            await client.downloadsInProgress().contains { $0.url.path == ladder.urlPath(visible, "small_thumb") }
        }
        #expect(ladder.server.requests.contains(ladder.indexPath(visible)))
        #expect(!ladder.server.requests.contains(ladder.urlPath(prefetched, "small_thumb")))
        ladder.server.configure { $0.held = [] }
        let timeline = try await load.value
        _ = try await first.value
        try await waitUntil { client.prefetchingCount == 0 }
        guard case .placeholder = timeline.frames.first?.stage else {
            Issue.record("the visible image showed no placeholder first")
            return
        }
        #expect(timeline.rungNames == ["small_thumb"])
        let order = ladder.server.requests
        let visibleIndex = try #require(order.firstIndex(of: ladder.indexPath(visible)))
        let visibleRung = try #require(order.firstIndex(of: ladder.urlPath(visible, "small_thumb")))
        let prefetchedIndex = try #require(order.firstIndex(of: ladder.indexPath(prefetched)))
        let prefetchedRung = try #require(order.firstIndex(of: ladder.urlPath(prefetched, "small_thumb")))
        #expect(visibleIndex < prefetchedIndex && prefetchedIndex < prefetchedRung, "\(order)")
        #expect(visibleRung < prefetchedRung, "a visible rung before a prefetched one: \(order)")
    }

    @Test("prefetching fills the disk cache, and a load after it needs no download; cancelled, it stops")
    func prefetch() async throws {
        let ladder = try ServedLadder(photos: 2)
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
        let client = ladder.client(cache: cache)
        let (kept, dropped) = (ladder.sha1s[0], ladder.sha1s[1])
        ladder.server.configure { $0.held = [ladder.urlPath(dropped, "large_thumb")] }
        client.prefetch([.sha1(kept), .sha1(dropped)], width: 600, height: 600)
        try await waitUntil {
            await cache.storedNames().contains(kept + "-large_thumb")
                && ladder.server.requests.contains(ladder.urlPath(dropped, "large_thumb"))
        }
        client.cancelPrefetch([.sha1(dropped)])
        try await waitUntil { client.prefetchingCount == 0 }
        ladder.server.configure { $0.held = [] }
        #expect(client.prefetchingCount == 0)
        #expect(await cache.storedNames().contains(kept + "-large_thumb"))
        #expect(!(await cache.storedNames()).contains(dropped + "-large_thumb"))
        #expect(!ladder.server.requests.contains(ladder.urlPath(kept, "small_thumb")), "only the rung the view needs")

        let before = ladder.server.requests.count
        let timeline = try await Timeline.record(client.load(.sha1(kept), width: 600, height: 600))
        #expect(timeline.rungNames == ["large_thumb"])
        #expect(ladder.server.requests.count == before, "the index file and the rung came from the caches")
    }

    @Test("an interrupted full download resumes with a 206 and the right bytes, its scans shown at once")
    func resume() async throws {
        let (ladder, folder, cache, kept) = try await Self.interrupted()
        defer { withExtendedLifetime(folder) {} }
        let sha1 = ladder.sha1s[0]
        let full = ladder.urlPath(sha1, "full")

        // Held at the server: what the cache kept shows before any new byte arrives.
        ladder.server.configure { $0.held = [full] }
        let client = ladder.client(cache: cache)
        let live = LiveFrames()
        let load = Task { try await Timeline.record(client.load(.sha1(sha1), width: 4000, height: 4000), live: live) }
        try await waitUntil {
            live.frames.contains { if case .scans = $0.stage { true } else { false } }
                && ladder.server.log.contains { $0.path == full && $0.rangeStart != nil }
        }
        #expect(ladder.server.log.last { $0.path == full }?.sent == 0, "shown before the server sent a byte")
        ladder.server.configure { $0.held = [] }
        let timeline = try await load.value

        let request = try #require(ladder.server.log.last { $0.path == full })
        let bytes = try ladder.fileBytes(sha1, "full")
        #expect(request.rangeStart == kept.bytes)
        #expect(request.ifRange == LoopbackServer.entityTag(of: [UInt8](bytes)))
        #expect(request.status == 206)
        #expect(request.sent == bytes.count - kept.bytes, "only the rest of the file was sent")
        #expect(timeline.frame(of: "full")?.isFinal == true)
        #expect(timeline.failures.isEmpty)
        #expect(timeline.scanFrames.first?.scans == kept.scans, "the kept scans show first")
        let names = await cache.storedNames()
        #expect(names.contains(sha1 + "-full") && !names.contains { $0.hasPrefix("partial-") })
    }

    @Test("a server that answers a range with the whole file (200) is read from its start")
    func wholeFileForARange() async throws {
        let (ladder, folder, cache, kept) = try await Self.interrupted()
        defer { withExtendedLifetime(folder) {} }
        let sha1 = ladder.sha1s[0]
        ladder.server.configure { $0.ignoresRange = true }
        let timeline = try await Timeline.record(
            ladder.client(cache: cache).load(.sha1(sha1), width: 4000, height: 4000))
        let request = try #require(ladder.server.log.last { $0.path == ladder.urlPath(sha1, "full") })
        #expect(request.rangeStart == kept.bytes && request.status == 200)
        #expect(request.sent == (try ladder.fileBytes(sha1, "full")).count)
        #expect(timeline.frame(of: "full")?.isFinal == true)
        #expect(timeline.failures.isEmpty)
        #expect(await cache.storedNames().contains(sha1 + "-full"))
    }

    @Test("a resumed file that fails its check leaves no prefix and no picture of it behind")
    func resumedFileFailsItsCheck() async throws {
        let (ladder, folder, cache, kept) = try await Self.interrupted()
        defer { withExtendedLifetime(folder) {} }
        let sha1 = ladder.sha1s[0]
        let full = ladder.urlPath(sha1, "full")
        // The server's file changed after the part kept: its last byte.
        var changed = [UInt8](try ladder.fileBytes(sha1, "full"))
        changed[changed.count - 3] ^= 0x01
        ladder.server.configure { $0.replaced = [full: changed] }
        let memory = MemoryCache()
        let client = ladder.client(cache: cache, memory: memory)
        let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 4000, height: 4000))
        // The client sent the kept part's validator; the changed file has another, so the server
        // sent it whole, and its first bytes matched those kept: its check failed at the end.
        let request = try #require(ladder.server.log.last { $0.path == full })
        #expect(request.rangeStart == kept.bytes && request.status == 200)
        let failure = try #require(timeline.failures.first)
        #expect(failure.0 == "full")
        guard case .checksum = failure.1 else {
            Issue.record("expected a checksum error, got \(failure.1)")
            return
        }
        let names = await cache.storedNames()
        #expect(!names.contains { $0.hasPrefix("partial-") }, "the prefix of a file that failed is not kept: \(names)")
        #expect(!names.contains(sha1 + "-full"))
        // The view went back to the last checked picture, and no picture of the file is kept.
        let last = try #require(timeline.frames.last)
        #expect(last.rung?.name == "large_thumb" && last.stage == .whole)
        #expect(client.cached(.sha1(sha1), width: 4000, height: 4000)?.rung?.name == "large_thumb")
    }

    /// A ladder of one photo whose full-size file was loaded while the server broke the
    /// connection halfway through its third scan, the folder of the disk cache it loaded with,
    /// and how many bytes (and scans) that cache kept of the file.
    static func interrupted() async throws -> (
        ladder: ServedLadder, folder: TemporaryDirectory, cache: DiskCache, kept: (bytes: Int, scans: Int)
    ) {
        let ladder = try ServedLadder(photos: 1)
        let folder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: folder.url("cache"), limit: 50_000_000)
        let sha1 = ladder.sha1s[0]
        let full = ladder.urlPath(sha1, "full")
        let ends = try #require(ladder.manifest.images[sha1]?.variants["full"]?.scanEnds)
        try #require(ends.count == 5)
        let cut = (ends[1] + ends[2]) / 2
        ladder.server.configure { $0.cutAfter = [full: cut] }
        let timeline = try await Timeline.record(
            ladder.client(cache: cache).load(.sha1(sha1), width: 4000, height: 4000))
        ladder.server.configure { $0.cutAfter = [:] }
        let failure = try #require(timeline.failures.first)
        #expect(failure.0 == "full")
        let sha256 = try #require(ladder.manifest.images[sha1]?.variants["full"]?.sha256)
        let partial = try Data(contentsOf: cache.folder.appendingPathComponent("partial-" + sha256))
        // A line with the validator, then the bytes.
        let newline = try #require(partial.firstIndex(of: 0x0A))
        #expect(partial.count - newline - 1 == cut, "what arrived before the connection broke is kept")
        return (ladder, folder, cache, (cut, 2))
    }
}
