public import Foundation

/// A folder of downloaded files under a size limit, the least recently used dropped first: the
/// variant files that passed their SHA-256 check, the index files (so that cached images load
/// without a network), and the first part of downloads that stopped before their end (so that
/// they resume where they stopped, and their scans show at once).
///
/// Variant files are stored only once they passed their check, and checked again when read: a
/// damaged one, or one the manifest no longer names (the variant was made again), is deleted and
/// downloaded anew. The first part of a file is kept under the SHA-256 the whole file must have,
/// and deleted as soon as the whole file fails that check. Files are written to a temporary name
/// and renamed, so a crash never leaves half a file under a real name.
public actor DiskCache {
    public nonisolated let folder: URL
    /// The most bytes the folder holds; a file larger than this is not stored.
    public nonisolated let limit: Int
    private var files: [String: (bytes: Int, used: Date)]?
    private var clock = Date.distantPast

    public init(folder: URL, limit: Int) {
        self.folder = folder
        self.limit = limit
    }

    /// The bytes the cache holds now.
    public var totalBytes: Int { loadedFiles().values.reduce(0) { $0 + $1.bytes } }

    /// The names of the files stored now, sorted: `<sha1>-<variant>` for a variant's JPEG
    /// (`<sha1>-<variant>.<format>` for a sibling), `index-…` for index files, `partial-<sha256>`
    /// for the first part of a download.
    public func storedNames() -> [String] { loadedFiles().keys.sorted() }

    /// Deletes every file.
    public func removeAll() {
        for name in loadedFiles().keys { remove(name) }
    }

    // MARK: - Names

    /// The name of a rung's file: its image's SHA1, the variant, and the format unless it is the
    /// JPEG.
    static func name(sha1: String, rung: String, format: String) -> String {
        sha1.lowercased() + "-" + safe(rung) + (format == "jpeg" ? "" : "." + safe(format))
    }

    /// The name of an index file at `path` (relative to the manifest's folder) of the server at
    /// `baseURL`: index files are not checked, so each server has its own.
    static func indexName(path: String, baseURL: URL) -> String {
        "index-" + sha256Hex(Data((baseURL.absoluteString + "\n" + path).utf8)).prefix(32)
    }

    /// The name of the first part of the file whose SHA-256 is `sha256`.
    static func partialName(sha256: String) -> String { "partial-" + safe(sha256) }

    /// `text` when it is made of letters, digits, `_` and `.` only (a variant's name), else a
    /// digest of it: a file name that no file system reads differently.
    private static func safe(_ text: String) -> String {
        let allowed = text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        return allowed && !text.isEmpty && text != "." && text != ".."
            ? text : "x" + sha256Hex(Data(text.utf8)).prefix(16)
    }

    // MARK: - Files

    /// True when a file of that name is stored (unread, so unchecked).
    func contains(_ name: String) -> Bool { loadedFiles()[name] != nil }

    /// The stored file, when there is one and its SHA-256 is `sha256`; a file that fails the
    /// check is deleted.
    func data(named name: String, sha256: String) -> Data? {
        guard let data = data(named: name) else { return nil }
        guard sha256Hex(data) == sha256 else {
            remove(name)
            return nil
        }
        return data
    }

    /// The stored file as it is (index files, which have no checksum to check).
    func data(named name: String) -> Data? {
        guard loadedFiles()[name] != nil else { return nil }
        let url = folder.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else {
            remove(name)
            return nil
        }
        let now = tick()
        files?[name]?.used = now
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        return data
    }

    /// Stores a file, then drops the least recently used files until the folder is within the
    /// limit.
    func store(_ data: Data, named name: String) {
        guard data.count <= limit else { return }
        _ = loadedFiles()
        let temporary = folder.appendingPathComponent(".writing-" + UUID().uuidString)
        do {
            try data.write(to: temporary)
            try replaceFile(folder.appendingPathComponent(name), with: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return
        }
        files?[name] = (data.count, tick())
        var total = totalBytes
        while total > limit, let oldest = files?.min(by: { $0.value.used < $1.value.used }) {
            remove(oldest.key)
            total -= oldest.value.bytes
        }
    }

    /// Deletes a file, if it is stored.
    func remove(_ name: String) {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        files?[name] = nil
    }

    // MARK: - The first part of a download

    /// The first bytes of the file whose SHA-256 is `sha256`, and the validator (ETag or
    /// Last-Modified) the server sent with them; nil when none are kept.
    func partial(sha256: String) -> (data: Data, validator: String?)? {
        guard let stored = data(named: Self.partialName(sha256: sha256)),
            let newline = stored.firstIndex(of: 0x0A)
        else { return nil }
        let validator = String(decoding: stored[..<newline], as: UTF8.self)
        return (Data(stored[(newline + 1)...]), validator.isEmpty ? nil : validator)
    }

    /// Keeps the first bytes of a file, with the validator to resume it with (a line before
    /// them).
    func storePartial(_ data: Data, validator: String?, sha256: String) {
        var stored = Data((validator ?? "").filter { $0 != "\n" && $0 != "\r" }.utf8)
        stored.append(0x0A)
        stored.append(data)
        store(stored, named: Self.partialName(sha256: sha256))
    }

    /// Forgets the first bytes of a file: it completed, or it failed its check.
    func removePartial(sha256: String) { remove(Self.partialName(sha256: sha256)) }

    // MARK: - Bookkeeping

    /// A time later than every one given before, so that recency is strict even within one
    /// clock tick.
    private func tick() -> Date {
        clock = max(Date(), clock.addingTimeInterval(0.001))
        return clock
    }

    /// What the folder holds, read once; leftovers of interrupted writes are deleted.
    private func loadedFiles() -> [String: (bytes: Int, used: Date)] {
        if let files { return files }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var found: [String: (bytes: Int, used: Date)] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names {
            let url = folder.appendingPathComponent(name)
            if name.hasPrefix(".writing-") || name.hasPrefix(".partial-") {
                try? FileManager.default.removeItem(at: url)
                continue
            }
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { continue }
            let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
            found[name] = (bytes, attributes[.modificationDate] as? Date ?? .distantPast)
        }
        files = found
        return found
    }
}
