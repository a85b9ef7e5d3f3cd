import Foundation
import LadderManifest

/// Decoded pictures, by image and rung, under a cost limit (the bytes the pictures take), the
/// least recently used dropped first: what lets a reused cell show its best picture at once
/// (`LadderClient.cached(_:width:height:fit:)`), and a second load of an image skip the
/// download and the decoding.
///
/// It keeps whole rungs and the latest scans of a progressive rung still downloading (those go
/// when the file fails its check). `purge()` empties it; on iOS, tvOS and visionOS it purges
/// itself when the system warns that memory is low. One cache may serve several clients.
public final class MemoryCache: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    /// The most bytes its pictures take together; a picture larger than this is not kept.
    public let costLimit: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var keysBySHA1: [String: Set<Key>] = [:]
    private var total = 0
    private var clock: UInt64 = 0
    private var observer: (any NSObjectProtocol)?

    private struct Key: Hashable {
        var sha1: String
        /// The SHA-256 of the file drawn.
        var file: String
    }

    private struct Entry {
        var frame: Frame
        /// The ladder of the frame's image: what a lookup chooses the rung it needs from.
        var ladder: Ladder
        var cost: Int
        var used: UInt64
    }

    /// A fifth of the device's memory, at most 512 MiB.
    public static var defaultCostLimit: Int {
        Int(min(ProcessInfo.processInfo.physicalMemory / 5, 512 << 20))
    }

    public init(costLimit: Int = MemoryCache.defaultCostLimit) {
        self.costLimit = costLimit
        #if os(iOS) || os(tvOS) || os(visionOS)
            // UIApplication.didReceiveMemoryWarningNotification, by name: UIKit's constant is
            // isolated to the main actor, and the cache is not.
            observer = NotificationCenter.default.addObserver(
                forName: Notification.Name("UIApplicationDidReceiveMemoryWarningNotification"), object: nil,
                queue: nil
            ) { [weak self] _ in self?.purge() }
        #endif
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// The bytes its pictures take now.
    public var totalCost: Int { lock.withLock { total } }

    /// How many pictures it holds.
    public var count: Int { lock.withLock { entries.count } }

    /// Drops every picture.
    public func purge() {
        lock.withLock {
            entries = [:]
            keysBySHA1 = [:]
            total = 0
        }
    }

    // MARK: - For the client

    /// The frame kept for the file whose SHA-256 is `file`, of the image `sha1`.
    func frame(sha1: String, file: String) -> Frame? {
        lock.withLock {
            let key = Key(sha1: sha1, file: file)
            guard var entry = entries[key] else { return nil }
            clock += 1
            entry.used = clock
            entries[key] = entry
            return entry.frame
        }
    }

    /// Every frame kept of the image `sha1`, and its ladder.
    func frames(sha1: String) -> [(frame: Frame, ladder: Ladder)] {
        lock.withLock {
            (keysBySHA1[sha1] ?? []).compactMap { key in entries[key].map { ($0.frame, $0.ladder) } }
        }
    }

    /// Keeps `frame` (of the image `sha1` whose ladder is `ladder`, drawn from the file whose
    /// SHA-256 is `file`) in place of the one kept for that file, then drops the least recently
    /// used until the pictures are within the limit.
    func store(_ frame: Frame, sha1: String, file: String, ladder: Ladder) {
        let cost = frame.picture.cost
        guard cost <= costLimit else { return }
        lock.withLock {
            let key = Key(sha1: sha1, file: file)
            clock += 1
            total += cost - (entries[key]?.cost ?? 0)
            entries[key] = Entry(frame: frame, ladder: ladder, cost: cost, used: clock)
            keysBySHA1[sha1, default: []].insert(key)
            while total > costLimit, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
                removeEntry(oldest)
            }
        }
    }

    /// Drops the frame kept for a file (its whole file failed its check).
    func remove(sha1: String, file: String) {
        lock.withLock { removeEntry(Key(sha1: sha1, file: file)) }
    }

    /// Called under the lock.
    private func removeEntry(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        total -= entry.cost
        keysBySHA1[key.sha1]?.remove(key)
        if keysBySHA1[key.sha1]?.isEmpty == true { keysBySHA1[key.sha1] = nil }
    }
}
