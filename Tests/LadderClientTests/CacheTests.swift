import Foundation
import LadderClient
import LadderManifest
import Testing

/// The memory cache of pictures and the disk cache of files.
@Suite("Client caches", .serialized)
struct CacheTests {
    @Test("the memory cache stays under its cost, drops the least recently used, and empties on purge")
    func memoryCost() async throws {
        let ladder = try ServedLadder(photos: 3)
        // large_thumb is 640 x 480 RGB: room for two of them and a few thumbnails, not three.
        let large = 640 * 480 * 3
        let memory = MemoryCache(costLimit: large * 2 + large / 2)
        let client = ladder.client(memory: memory)
        for sha1 in ladder.sha1s {
            let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
            #expect(timeline.rungNames.last == "large_thumb")
            #expect(memory.totalCost <= memory.costLimit)
        }
        #expect(memory.totalCost > large * 2 - 1, "two large thumbnails are kept")
        #expect(
            client.cached(.sha1(ladder.sha1s[0]), width: 600, height: 600)?.rung?.name != "large_thumb",
            "the least recently used large thumbnail went first")
        #expect(client.cached(.sha1(ladder.sha1s[2]), width: 600, height: 600)?.rung?.name == "large_thumb")

        memory.purge()
        #expect(memory.totalCost == 0 && memory.count == 0)
        for sha1 in ladder.sha1s { #expect(client.cached(.sha1(sha1), width: 600, height: 600) == nil) }
    }

    @Test("a reused cell's lookup returns at once the largest rung kept, final when it is sharp enough")
    func synchronousLookup() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        let client = ladder.client(memory: MemoryCache())
        #expect(client.cached(.sha1(sha1), width: 600, height: 600) == nil)
        let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
        let shown = try #require(timeline.frame(of: "large_thumb"))

        let cell = try #require(client.cached(.sha1(sha1), width: 600, height: 600))
        #expect(cell.rung?.name == "large_thumb" && cell.stage == .whole && cell.isFinal)
        #expect(cell.picture.width == shown.picture.width && cell.picture.height == shown.picture.height)
        let samePixels = cell.picture.samples == shown.picture.samples
        #expect(samePixels, "the picture kept is the one shown")
        // A larger view gets the largest picture kept, not final: its load goes on to full.
        let larger = try #require(client.cached(.sha1(sha1), width: 4000, height: 4000))
        #expect(larger.rung?.name == "large_thumb" && !larger.isFinal)

        // A second load draws it from memory, with no download.
        let before = ladder.server.requests.count
        let again = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
        #expect(again.frames.last?.rung?.name == "large_thumb" && again.frames.last?.isFinal == true)
        #expect(ladder.server.requests.count == before)
    }

    @Test("with the server stopped, images kept in the disk cache still load, index files included")
    func offline() async throws {
        let ladder = try ServedLadder(photos: 2)
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
        for sha1 in ladder.sha1s {
            let timeline = try await Timeline.record(
                ladder.client(cache: cache).load(.sha1(sha1), width: 600, height: 600))
            #expect(timeline.rungNames.last == "large_thumb")
        }
        #expect(await cache.storedNames().contains { $0.hasPrefix("index-") })
        ladder.server.stop()

        // A new client, as after a restart of the app: nothing in memory.
        let client = ladder.client(cache: DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000))
        for sha1 in ladder.sha1s {
            let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
            guard case .placeholder = timeline.frames.first?.stage else {
                Issue.record("no placeholder offline: \(timeline.frames.map(\.stage))")
                continue
            }
            #expect(timeline.rungNames == ["large_thumb"])
            #expect(timeline.frames.last?.isFinal == true)
            #expect(timeline.failures.isEmpty)
        }
        // An image whose rung was never downloaded fails with the transport's error.
        let timeline = try await Timeline.record(client.load(.sha1(ladder.sha1s[0]), width: 4000, height: 4000))
        #expect(timeline.rungNames == ["large_thumb"])
        #expect(timeline.failures.map(\.0) == ["full"])
    }

    @Test("the disk cache stays under its limit, drops the least recently used, and serves hits without the network")
    func diskLimit() async throws {
        let ladder = try ServedLadder(photos: 3)
        let sizes = ladder.sha1s.compactMap { ladder.manifest.images[$0]?.variants["large_thumb"]?.bytes }
        // Room for two large thumbnails (and the small index files) and nothing more.
        let limit = (sizes.max() ?? 0) * 2 + (sizes.min() ?? 0) / 2
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: limit)
        let client = ladder.client(cache: cache)
        // 600 pixels needs large_thumb; small_thumb is cancelled or dropped once it is there.
        for sha1 in ladder.sha1s {
            let timeline = try await Timeline.record(client.load(.sha1(sha1), width: 600, height: 600))
            #expect(timeline.rungNames.last == "large_thumb")
        }
        let sizesOnDisk = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path("cache")).map {
            try FileManager.default.attributesOfItem(atPath: cacheFolder.path("cache/" + $0))[.size] as? Int ?? 0
        }
        #expect(sizesOnDisk.reduce(0, +) <= limit)
        let stored = await cache.storedNames()
        #expect(!stored.contains(ladder.sha1s[0] + "-large_thumb"), "the least recently used is dropped first")
        #expect(stored.contains(ladder.sha1s[2] + "-large_thumb"))

        let before = ladder.server.requests.count
        let fresh = ladder.client(cache: cache)
        let again = try await Timeline.record(fresh.load(.sha1(ladder.sha1s[2]), width: 600, height: 600))
        #expect(again.rungNames == ["large_thumb"])
        // The index file is asked for again (a new build may have changed it); the rung is not.
        #expect(ladder.server.requests.dropFirst(before).allSatisfy { $0.hasPrefix("/index/") })
    }

    @Test("a damaged file in the disk cache is deleted and downloaded again")
    func damagedCacheFile() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        let cacheFolder = TemporaryDirectory("ladder-cache")
        let cache = DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000)
        _ = try await Timeline.record(ladder.client(cache: cache).load(.sha1(sha1), width: 600, height: 600))
        let file = cacheFolder.url("cache").appendingPathComponent(sha1 + "-large_thumb")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: file)

        let timeline = try await Timeline.record(
            ladder.client(cache: DiskCache(folder: cacheFolder.url("cache"), limit: 50_000_000))
                .load(.sha1(sha1), width: 600, height: 600))
        #expect(timeline.rungNames == ["large_thumb"])
        #expect(timeline.failures.isEmpty)
        #expect(ladder.server.requests.filter { $0 == ladder.urlPath(sha1, "large_thumb") }.count == 2)
        #expect(try Data(contentsOf: file) == (try ladder.fileBytes(sha1, "large_thumb")))
    }
}
