import LadderImaging
import Synchronization

/// Placeholder checks that held, kept between runs of `ladder verify`, so that an unchanged
/// image's smallest variant is not decoded again on the next commit.
///
/// The check holds a file's decoded pixels to two recorded strings (`PlaceholderCheck`), so its
/// verdict is a function of the file's bytes, those strings and the code that decodes and
/// measures. A verdict is kept under a key: the SHA-256 of the file's SHA-256 as verify read it
/// now (not as the manifest says), `placeholder`, `averageColor`, ladder's version, this
/// store's revision and the versions of libjpeg-turbo and libvips; a change to any of them is a
/// different key. Only verdicts that held are kept: a problem is found again, and reported
/// with its numbers, on every run.
///
/// One file in the state folder beside pipeline.json (`.ladder/placeholder-verdicts`, never in
/// the output folder): a header line, the keys in ascending order, 32 bytes each, and the
/// SHA-256 of everything before it. A file that is damaged, cut short or unreadable is ignored,
/// and the placeholders decoded again, so it can cost decodes but never give a wrong answer.
/// The run writes it again, atomically, with the keys it used, when they differ from those it
/// read: verdicts of images no longer in the manifest go.
final class PlaceholderVerdicts: Sendable {
    /// Bump when what the placeholder check holds, or how it decodes, changes.
    static let revision = 1

    /// A verdict's key: a SHA-256, as four words.
    struct Key: Hashable, Comparable, Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        static func == (a: Key, b: Key) -> Bool { a.words == b.words }
        static func < (a: Key, b: Key) -> Bool { a.words < b.words }

        func hash(into hasher: inout Hasher) {
            // Already a hash: one word is enough.
            hasher.combine(words.0)
        }

        /// The key stored as 32 bytes (`bytes`), most significant first.
        init(bytes: ArraySlice<UInt8>) {
            precondition(bytes.count == 32)
            words = bytes.withUnsafeBytes { raw in
                func word(_ index: Int) -> UInt64 {
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                }
                return (word(0), word(1), word(2), word(3))
            }
        }

        var bytes: [UInt8] {
            withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)) {
                Array($0)
            }
        }
    }

    static let header = Array("ladder placeholder verdicts 1\n".utf8)

    private let folder: Directory
    /// The verdicts read at the start of the run.
    private let kept: Set<Key>
    /// The keys this run looked up and found, or kept anew.
    private let used = Mutex<[Key]>([])
    /// What every key starts with: the versions of the code that decides.
    private let prefix: String

    /// Opens (creating it) the state folder `stateFolder` and reads the verdicts kept there; nil
    /// when the folder cannot be opened, and every placeholder is then decoded.
    init?(stateFolder: String, versions: Imaging.Versions = Imaging.versions) {
        guard let folder = try? Directory.create(stateFolder) else { return nil }
        self.folder = folder
        kept = (try? folder.readFile(StateFolder.placeholderVerdicts, limit: 1 << 30)).flatMap(Self.keys) ?? []
        prefix =
            "ladder \(LadderVersion.current) placeholder-verdicts \(Self.revision)\n"
            + "libjpeg-turbo \(versions.libjpeg)\nlibvips \(versions.libvips)\n"
    }

    /// The key of the check of the file whose SHA-256 (as read now) is `sha256`, against the
    /// manifest's `placeholder` and `averageColor`.
    func key(sha256: String, placeholder: String?, averageColor: String?) -> Key {
        let text = prefix + sha256 + "\n" + (placeholder ?? "-") + "\n" + (averageColor ?? "-") + "\n"
        return Key(bytes: Checksum.digest(.sha256, of: Array(text.utf8))[...])
    }

    /// True when the check under `key` held on an earlier run.
    func held(_ key: Key) -> Bool {
        guard kept.contains(key) else { return false }
        used.withLock { $0.append(key) }
        return true
    }

    /// Keeps the verdict of a check that held.
    func keep(_ key: Key) {
        used.withLock { $0.append(key) }
    }

    /// Writes the keys this run used, when they differ from those it read; a failure to write
    /// costs decodes next time, nothing else.
    func save() {
        let keys = Array(Set(used.withLock { $0 })).sorted()
        guard keys.count != kept.count || keys.contains(where: { !kept.contains($0) }) else { return }
        var bytes = Self.header
        bytes.reserveCapacity(Self.header.count + 32 * (keys.count + 1))
        for key in keys { bytes += key.bytes }
        bytes += Checksum.digest(.sha256, of: bytes)
        try? folder.writeAtomically(bytes, to: StateFolder.placeholderVerdicts)
    }

    /// The keys of a file's bytes; nil when they are not such a file, whole and in order.
    static func keys(_ bytes: [UInt8]) -> Set<Key>? {
        let body = bytes.count - 32
        guard body >= header.count, (body - header.count) % 32 == 0,
            bytes.starts(with: header),
            Checksum.digest(.sha256, of: bytes[..<body])[...] == bytes[body...]
        else { return nil }
        var keys = Set<Key>(minimumCapacity: (body - header.count) / 32)
        var previous: Key?
        for start in stride(from: header.count, to: body, by: 32) {
            let key = Key(bytes: bytes[start..<start + 32])
            if let previous, !(previous < key) { return nil }
            previous = key
            keys.insert(key)
        }
        return keys
    }
}
