import LadderImaging
import Synchronization

/// Finds the SHA1 of every source: from the stat cache when the file's identity is unchanged,
/// else by reading and hashing it, on `width` threads. What goes into the Plan.
struct SourceHashing {
    /// The hashes, in the order of the sources.
    var sources: [HashedSource]
    /// Files read and hashed (the others came from the stat cache).
    var hashed: Int
    /// True when some cache entry matched its file but could not be trusted (written too close
    /// to the scan that recorded it), so that the cache is saved again.
    var distrustedCacheEntries: Bool

    init(_ files: [SourceFile], cache: StatCache, limit: Int, width: Int) {
        let progress = Mutex(HashingProgress(hashes: Array(repeating: nil, count: files.count)))
        ParallelRunner.run(count: files.count, width: width) { index in
            let file = files[index]
            if let sha1 = cache.sha1(for: file) {
                progress.withLock { $0.hashes[index] = .sha1(sha1) }
                return true
            }
            let content: HashedSource.Content
            do throws(FileSystemError) {
                // Streamed: the build never holds a whole source.
                content = .sha1(try Directory.digest(ofFileAtPath: file.absolutePath, .sha1, limit: limit).hex)
            } catch {
                content = .unreadable(error.reason)
            }
            let distrusted = cache.entry(for: file)?.status == file.status
            progress.withLock {
                $0.hashes[index] = content
                if case .sha1 = content {
                    $0.hashed += 1
                    if distrusted { $0.distrusted = true }
                }
            }
            return true
        }
        let result = progress.withLock { $0 }
        sources = zip(files, result.hashes).map { HashedSource(path: $0.path, content: $1!) }
        hashed = result.hashed
        distrustedCacheEntries = result.distrusted
    }
}

/// What the hashing threads share.
private struct HashingProgress: Sendable {
    var hashes: [HashedSource.Content?]
    var hashed = 0
    var distrusted = false
}
