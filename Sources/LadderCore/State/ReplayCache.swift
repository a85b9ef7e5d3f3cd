import Foundation
import LadderImaging

/// Replay results kept between runs of `ladder verify`, so that an unchanged image is not
/// replayed again on the next commit.
///
/// An entry is keyed by the SHA-256 of every rung file the replay read (as read now, not as the
/// manifest says), the replay settings, and ladder's version and this cache's revision; a change
/// to any of them is a different key. Each entry carries the SHA-256 of its own content: an
/// entry that is damaged, truncated or unreadable is ignored and the image replayed again, so
/// the cache can cost a replay but never give a wrong answer. Entries the run did not use are
/// deleted at its end. It lives in the state folder beside pipeline.json
/// (`.ladder/replay-cache/`), never in the output folder.
final class ReplayCache: @unchecked Sendable {
    // @unchecked: `used` is guarded by its lock; the rest is immutable.

    /// Bump when what a replay measures changes, so that older entries are not reused
    /// (revision 2 measures every scan against a one-shot decode of the file; revision 3 adds
    /// what the screen shows: the first rung, the view's width and the colour measure; revision
    /// 4 pools the view before SSIM, as Wang's ssim.m does; revision 5 measures multi-scale
    /// SSIM, luma weighted 0.8, `ScreenQuality`; revision 6 paints each scan before libjpeg
    /// reads the next scan's header, as browsers do, `ScanPainter`).
    static let revision = 6

    /// What is cached for one image: its replay report and the rungs of its ladder timeline.
    struct Entry: Codable, Equatable {
        var report: ReplayReport
        var rungs: [LadderTimeline.Rung]
    }

    private struct Stored: Codable {
        /// SHA-256 of the JSON encoding of `entry`, to tell a damaged file.
        var check: String
        var entry: Entry
    }

    private let folder: Directory
    private let lock = NSLock()
    private var used: Set<String> = []

    /// Opens (creating it) the cache in `stateFolder`; nil when it cannot be, and replays
    /// then simply run.
    init?(stateFolder: String) {
        guard let state = try? Directory.create(stateFolder),
            let folder = try? state.subdirectory(StateFolder.replayCache, create: true)
        else { return nil }
        self.folder = folder
    }

    /// The key of one image's replay: every input that can change its result.
    static func key(rungs: [(name: String, sha256: String)], settings: [String]) -> String {
        var text = "ladder \(LadderVersion.current) replay-cache \(revision)\n"
        for setting in settings { text += setting + "\n" }
        for rung in rungs { text += "\(rung.name) \(rung.sha256)\n" }
        return Checksum.hex(.sha256, of: Array(text.utf8))
    }

    /// The cached entry for `key`, or nil when there is none or it is damaged.
    func entry(for key: String) -> Entry? {
        lock.withLock { _ = used.insert(key) }
        guard let bytes = try? folder.readFile(key + ".json", limit: 64 << 20),
            let stored = try? JSONDecoder().decode(Stored.self, from: Data(bytes)),
            let encoded = try? Self.encoder.encode(stored.entry),
            Checksum.hex(.sha256, of: [UInt8](encoded)) == stored.check
        else { return nil }
        return stored.entry
    }

    /// Stores `entry` under `key`; a failure to write only costs a replay next time.
    func store(_ entry: Entry, for key: String) {
        lock.withLock { _ = used.insert(key) }
        guard let encoded = try? Self.encoder.encode(entry) else { return }
        let stored = Stored(check: Checksum.hex(.sha256, of: [UInt8](encoded)), entry: entry)
        guard let bytes = try? Self.encoder.encode(stored) else { return }
        try? folder.writeAtomically([UInt8](bytes), to: key + ".json")
    }

    /// Deletes the entries this run did not look up or store.
    func removeUnused() {
        let keep = lock.withLock { used }
        guard let names = try? folder.entries() else { return }
        for name in names where name.hasSuffix(".json") && !keep.contains(String(name.dropLast(5))) {
            try? folder.removeFile(name)
        }
    }

    /// Sorted keys: one entry always encodes to the same bytes, which its check relies on.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
