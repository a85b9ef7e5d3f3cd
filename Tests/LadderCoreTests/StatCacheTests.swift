import LadderCore
import Testing

@Suite("Stat cache")
struct StatCacheTests {
    static let sha1 = String(repeating: "ab", count: 20)

    static func file(modified: Int64, size: Int = 100, inode: UInt64 = 7) -> SourceFile {
        SourceFile(
            path: "photos/a.jpg", absolutePath: "/p/photos/a.jpg",
            status: FileStatus(
                kind: .regular, device: 1, inode: inode, size: size, modified: modified, changed: modified))
    }

    @Test("an unchanged file's SHA1 is remembered across runs")
    func remembers() {
        var cache = StatCache(scannedAt: 100_000_000_000)
        cache.record(Self.file(modified: 50_000_000_000), sha1: Self.sha1)
        let reloaded = StatCache(serialized: cache.serialized())
        #expect(reloaded.sha1(for: Self.file(modified: 50_000_000_000)) == Self.sha1)
    }

    @Test("any change of size, time or inode means the file is read again")
    func changedIdentity() {
        var cache = StatCache(scannedAt: 100_000_000_000)
        cache.record(Self.file(modified: 50_000_000_000), sha1: Self.sha1)
        #expect(cache.sha1(for: Self.file(modified: 50_000_000_001)) == nil)
        #expect(cache.sha1(for: Self.file(modified: 50_000_000_000, size: 101)) == nil)
        #expect(cache.sha1(for: Self.file(modified: 50_000_000_000, inode: 8)) == nil)
    }

    @Test("a file modified just before it was recorded is not trusted (racy)")
    func racyEntries() {
        var cache = StatCache(scannedAt: 100_000_000_000)
        cache.record(Self.file(modified: 99_500_000_000), sha1: Self.sha1)
        #expect(cache.sha1(for: Self.file(modified: 99_500_000_000)) == nil)
    }

    @Test("a damaged cache file gives an empty cache, never wrong answers")
    func damaged() {
        #expect(StatCache(serialized: Array("garbage\n1\t2".utf8)).sha1(for: Self.file(modified: 1)) == nil)
    }
}
