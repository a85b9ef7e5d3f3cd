import Foundation
import LadderImaging
import LadderManifest
import Synchronization

/// What the phases of a build share: reading sources, the source list's checksum, locks,
/// warnings about names.
extension Builder {
    /// Sources whose extension names another format than their content: ladder goes by the
    /// content, but other tools (and web servers choosing a content type) may not.
    static func extensionMismatches(in manifest: Manifest) -> [SourceWarning] {
        var warnings: [SourceWarning] = []
        for entry in manifest.images.values {
            guard let format = entry.format.flatMap(ImageFormat.init(rawValue:)) else { continue }
            warnings += entry.sources.compactMap { SourceWarning.extensionMismatch(path: $0, format: format) }
        }
        return warnings
    }

    /// SHA1 of source paths (sorted), each followed by a line feed: what every shard of a build
    /// must agree on.
    static func sourceListSHA1(_ sortedPaths: [String]) -> String {
        sourceListSHA1(sortedPaths.lazy.map { Array($0.utf8) })
    }

    /// `sourceListSHA1(_:)` of paths given as their bytes.
    static func sourceListSHA1(_ sortedPaths: some Sequence<some RandomAccessCollection<UInt8>>) -> String {
        var checksum = Checksum(.sha1)
        let lineFeed: [UInt8] = [0x0A]
        for path in sortedPaths {
            let contiguous: Void? = path.withContiguousStorageIfAvailable {
                checksum.update(UnsafeRawBufferPointer($0))
            }
            if contiguous == nil { Array(path).withUnsafeBytes { checksum.update($0) } }
            lineFeed.withUnsafeBytes { checksum.update($0) }
        }
        return checksum.hexDigest()
    }

    /// Takes a lock with `take(wait)`: at once when it is free, else, when waiting is allowed,
    /// after announcing the wait; otherwise the build stops as locked.
    @discardableResult
    static func acquire<Lock>(
        waitAllowed: Bool, folder: String, announce: (String) -> Void, _ take: (Bool) throws -> Lock?
    ) throws -> Lock {
        if let lock = try take(false) { return lock }
        guard waitAllowed else { throw BuildError.locked(folder) }
        announce(folder)
        guard let lock = try take(true) else { throw BuildError.locked(folder) }
        return lock
    }

    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000_000)
    }
}
