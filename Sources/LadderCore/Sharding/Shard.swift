import Foundation
import LadderImaging

/// One share of a build split over several machines: shard `index` of `count`, 1-based.
///
/// A source belongs to a shard by its SHA1, never by its path or its position in a listing, so
/// adding, removing or renaming files never moves the other sources between shards (their
/// variants, cached on each machine, stay where they are), and identical files land in the same
/// shard. Every shard still finds and hashes every source, which is cheap next to decoding and
/// is skipped for unchanged files by the stat cache.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// From 1 to `count`.
    package let index: Int
    package let count: Int

    /// The environment variables that hold a 0-based shard index, in the order they are read:
    /// ladder's own, then those that Kubernetes Indexed Jobs and AWS Batch array jobs set.
    /// (A GitHub Actions matrix sets none; pass `strategy.job-index` as LADDER_SHARD_INDEX.)
    package static let indexVariables = ["LADDER_SHARD_INDEX", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"]

    /// The environment variable that holds the number of shards for `--shard auto`.
    package static let countVariable = "LADDER_SHARD_COUNT"

    /// GitHub Actions allows 256 jobs in a matrix; far more shards than any CI runs at once.
    package static let maximumCount = 10_000

    package init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    package var description: String { "\(index)/\(count)" }

    /// "shard-K-of-N", which names this shard's files (partial manifest, lock, state).
    package var tag: String { Self.tag(index: index, count: count) }

    static func tag(index: Int, count: Int) -> String { "shard-\(index)-of-\(count)" }

    /// True when the source with this SHA1 (40 hex digits) belongs to this shard: its first
    /// 64 bits, modulo `count`, are `index - 1`.
    package func owns(sha1: String) -> Bool {
        UInt64(sha1.prefix(16), radix: 16).map { Int($0 % UInt64(count)) == index - 1 } ?? (index == 1)
    }

    /// True when the source at `path`, which could not be read (so has no SHA1 of its
    /// content), belongs to this shard: the SHA1 of the path decides.
    package func owns(unreadablePath path: String) -> Bool {
        owns(sha1: Checksum.hex(.sha1, of: Array(path.utf8)))
    }

    // MARK: - Parsing

    /// Why a `--shard` value cannot be used.
    package struct SpecificationError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Reads `K/N` (shard K of N, from 1), `auto/N` (the index from the first of
    /// `indexVariables` that is set, counted from 0 as those systems do) or `auto` (the count
    /// from LADDER_SHARD_COUNT as well).
    package init(parsing text: String, environment: [String: String]) throws(SpecificationError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let first = parts.first else { throw Self.badSyntax(text) }
        let countText: String
        if parts.count == 2 {
            countText = parts[1]
        } else if first == "auto", let fromEnvironment = environment[Self.countVariable] {
            countText = fromEnvironment
        } else if first == "auto" {
            throw SpecificationError(
                description:
                    "'auto' needs the number of shards: write auto/N, or set \(Self.countVariable)")
        } else {
            throw Self.badSyntax(text)
        }
        guard let count = Int(countText), (1...Self.maximumCount).contains(count) else {
            throw SpecificationError(
                description: "the number of shards must be from 1 to \(Self.maximumCount), not '\(countText)'")
        }
        let index: Int
        if first == "auto" {
            guard let variable = Self.indexVariables.first(where: { environment[$0] != nil }) else {
                throw SpecificationError(
                    description:
                        "'auto' found none of \(Self.indexVariables.joined(separator: ", ")); set one to the shard's index, counted from 0"
                )
            }
            let value = environment[variable]!
            guard let zeroBased = Int(value.trimmingCharacters(in: .whitespaces)), (0..<count).contains(zeroBased)
            else {
                throw SpecificationError(
                    description: "\(variable)=\(value) is not a shard index from 0 to \(count - 1)")
            }
            index = zeroBased + 1
        } else {
            guard let oneBased = Int(first), (1...count).contains(oneBased) else {
                throw SpecificationError(
                    description: "the shard in '\(text)' must be from 1 to \(count) (shards are counted from 1)")
            }
            index = oneBased
        }
        self.init(index: index, count: count)!
    }

    private static func badSyntax(_ text: String) -> SpecificationError {
        SpecificationError(description: "'\(text)' is not a shard: write K/N (shard K of N, from 1), auto/N or auto")
    }

    // MARK: - Files

    /// Where this shard writes its partial manifest: next to the manifest, named after it, so
    /// that every shard's file can be gathered into one folder: `manifest.json` gives
    /// `manifest.shard-2-of-4.json`.
    package func partialManifestPath(for manifestPath: String) -> String {
        FilePath.join(
            FilePath.parent(manifestPath), Self.partialManifestName(for: manifestPath, index: index, count: count))
    }

    static func partialManifestName(for manifestPath: String, index: Int, count: Int) -> String {
        let (stem, suffix) = Self.stemAndSuffix(FilePath.name(manifestPath))
        return "\(stem).\(tag(index: index, count: count))\(suffix)"
    }

    /// True when `name` is the name of a partial manifest of the manifest at `manifestPath`
    /// (`manifest.shard-K-of-N.json`, with K and N written as ladder writes them).
    static func isPartialManifestName(_ name: String, for manifestPath: String) -> Bool {
        let (stem, suffix) = Self.stemAndSuffix(FilePath.name(manifestPath))
        let prefix = stem + ".shard-"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
            return false
        }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        let numbers = middle.split(separator: "-of-", omittingEmptySubsequences: false)
        guard numbers.count == 2, let index = Int(numbers[0]), let count = Int(numbers[1]) else { return false }
        return "\(index)-of-\(count)" == middle
    }

    private static func stemAndSuffix(_ name: String) -> (String, String) {
        name.hasSuffix(".json") ? (String(name.dropLast(5)), ".json") : (name, "")
    }
}
