import Foundation

/// The source paths a merge's shards cover, gathered as their images pass: their bytes in one
/// buffer, sorted once at the end into the list whose SHA1 each shard records
/// (`Builder.sourceListSHA1`). A shard's list holds each path once, so a path covered twice
/// makes another count or another SHA1. A set of the paths hashed each one as it came and kept
/// each as an array of its own, and the list was then sorted by a byte-by-byte comparison: at a
/// million sources, 2 s of the merging thread after the last image.
struct SourceCoverage {
    private var bytes: [UInt8] = []
    /// Where each path ends in `bytes`; it starts where the one before ends.
    private var ends: [Int] = []

    /// Adds a path covered, by its bytes.
    mutating func add(_ path: some Collection<UInt8>) {
        bytes.append(contentsOf: path)
        ends.append(bytes.count)
    }

    /// How many paths were added, and the SHA1 of their list sorted by their bytes.
    func sortedList() -> (count: Int, sha1: String) {
        var ranges = ends.indices.map { ($0 == 0 ? 0 : ends[$0 - 1])..<ends[$0] }
        bytes.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            ranges.sort { a, b in
                let common = memcmp(start + a.lowerBound, start + b.lowerBound, min(a.count, b.count))
                return common != 0 ? common < 0 : a.count < b.count
            }
        }
        return (ranges.count, Builder.sourceListSHA1(ranges.lazy.map { bytes[$0] }))
    }
}
