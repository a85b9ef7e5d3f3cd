public import Foundation

/// A folder of downloaded variant files, each named by its image's SHA1 and its variant
/// (`<sha1>-<variant>`), kept under a size limit by dropping the least recently used files.
///
/// Only files that passed their SHA-256 check are stored, and a stored file is checked again
/// when it is read: a damaged file, or one the manifest no longer names (the variant was made
/// again), is deleted and downloaded anew. Files are written to a temporary name and renamed,
/// so a crash never leaves half a file under a real name.
public actor DiskCache {
    public let folder: URL
    /// The most bytes the folder holds; a file larger than this is not stored.
    public let limit: Int
    private var files: [String: (bytes: Int, used: Date)]?
    private var clock = Date.distantPast

    public init(folder: URL, limit: Int) {
        self.folder = folder
        self.limit = limit
    }

    /// The bytes the cache holds now.
    public var totalBytes: Int { loadedFiles().values.reduce(0) { $0 + $1.bytes } }

    /// The file's name in the folder.
    static func name(sha1: String, variant: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
        let escaped = variant.addingPercentEncoding(withAllowedCharacters: allowed) ?? variant
        return sha1.lowercased() + "-" + escaped
    }

    /// The stored file, when there is one and its SHA-256 is `sha256`.
    public func data(sha1: String, variant: String, sha256: String) -> Data? {
        let name = Self.name(sha1: sha1, variant: variant)
        guard loadedFiles()[name] != nil else { return nil }
        let url = folder.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url), sha256Hex(data) == sha256 else {
            remove(name)
            return nil
        }
        let now = tick()
        files?[name]?.used = now
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        return data
    }

    /// Stores a file that passed its check, then drops the least recently used files until the
    /// folder is within the limit.
    public func store(_ data: Data, sha1: String, variant: String) {
        guard data.count <= limit else { return }
        let name = Self.name(sha1: sha1, variant: variant)
        _ = loadedFiles()
        let temporary = folder.appendingPathComponent(".partial-" + UUID().uuidString)
        do {
            try data.write(to: temporary)
            let target = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: target.path) {
                _ = try FileManager.default.replaceItemAt(target, withItemAt: temporary)
            } else {
                try FileManager.default.moveItem(at: temporary, to: target)
            }
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

    /// The names of the files stored now.
    public func storedNames() -> [String] { loadedFiles().keys.sorted() }

    private func remove(_ name: String) {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        files?[name] = nil
    }

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
            if name.hasPrefix(".partial-") {
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
