/// Remembers the SHA1 of each source file with the file's identity (device, inode, size,
/// modification and change times), so that an unchanged file is not read and hashed again.
///
/// A content hash, never a time stamp alone, decides what is rebuilt: the cache only saves
/// reading files whose identity is exactly as it was. Entries whose times are too close to
/// the moment they were recorded are not trusted (a write in the same clock tick would leave
/// the times unchanged), as git does with its index.
package struct StatCache: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var status: FileStatus
        var sha1: String
    }

    /// When the recorded identities were read, in nanoseconds since 1970.
    var scannedAt: Int64
    /// By the path's bytes: Swift's strings compare names that differ only by Unicode
    /// normalization equal, and those are two files with two identities.
    var entries: [[UInt8]: Entry]

    /// How close to `scannedAt` a file's times may be before its entry is distrusted.
    static let racyWindow: Int64 = 2_000_000_000

    static let header = "ladder-stat-cache 1"

    package init(scannedAt: Int64 = 0) {
        self.scannedAt = scannedAt
        self.entries = [:]
    }

    /// The SHA1 recorded for `file`, when its identity is unchanged and the record can be trusted.
    package func sha1(for file: SourceFile) -> String? {
        guard let entry = entry(for: file), entry.status == file.status,
            file.status.modified < scannedAt - Self.racyWindow, file.status.changed < scannedAt - Self.racyWindow
        else { return nil }
        return entry.sha1
    }

    /// What was recorded for `file`'s path, trusted or not.
    /// The number of sources it knows.
    package var count: Int { entries.count }

    func entry(for file: SourceFile) -> Entry? { entries[Array(file.path.utf8)] }

    /// Records `sha1` for `file`.
    package mutating func record(_ file: SourceFile, sha1: String) {
        entries[Array(file.path.utf8)] = Entry(status: file.status, sha1: sha1)
    }

    // MARK: - Storage

    /// One line per entry: sha1, device, inode, size, mtime, ctime, path, separated by tabs.
    /// Plain text reads much faster than JSON for tens of thousands of files.
    package func serialized() -> [UInt8] {
        var bytes = Array("\(Self.header) \(scannedAt)\n".utf8)
        let paths = entries.keys.filter { !$0.contains(UInt8(ascii: "\t")) && !$0.contains(UInt8(ascii: "\n")) }
        for path in paths.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            Self.append(path, entries[path]!, to: &bytes)
        }
        return bytes
    }

    private static func append(_ path: [UInt8], _ entry: Entry, to bytes: inout [UInt8]) {
        let status = entry.status
        bytes += Array(
            "\(entry.sha1)\t\(status.device)\t\(status.inode)\t\(status.size)\t\(status.modified)\t\(status.changed)\t"
                .utf8)
        bytes += path
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The SHA1 the serialized cache in `file` records for each of `paths` (few) that it has,
    /// by path, read a line at a time.
    static func recordedSHA1s(
        of paths: Set<[UInt8]>, in file: Directory.OpenFile
    ) throws(FileSystemError) -> [String: String] {
        let lengths = Set(paths.map(\.count))
        var sha1s: [String: String] = [:]
        try file.forEachLine { line, offset in
            // `<sha1>\t…\t<path>\n`, after the header line.
            let text = UnsafeBufferPointer(rebasing: line[..<(line.last == 0x0A ? line.count - 1 : line.count)])
            guard offset > 0, let tab = text.lastIndex(of: UInt8(ascii: "\t")), text.count > 40,
                lengths.contains(text.count - tab - 1)
            else { return true }
            let path = Array(text[(tab + 1)...])
            if paths.contains(path) {
                sha1s[String(decoding: path, as: UTF8.self)] = String(decoding: text[..<40], as: UTF8.self)
            }
            return true
        }
        return sha1s
    }

    /// The serialized cache in the file `old` with the entries of `removed` paths left out and
    /// `added` written in (both few), recorded at `scannedAt`, written into `file` a line at a
    /// time: the other lines are copied as they are. False, with `file` left unfinished, when
    /// `old` does not read as a cache whose lines are sorted by path.
    static func spliced(
        _ old: Directory.OpenFile, scannedAt: Int64, removing removed: Set<[UInt8]>, adding added: [SourceFile: String],
        into file: Directory.StreamedFile
    ) throws(FileSystemError) -> Bool {
        let firstLine = Array((header + " ").utf8)
        var headerRead = false
        var readable = true
        var pending = added.map { (path: Array($0.key.path.utf8), entry: Entry(status: $0.key.status, sha1: $0.value)) }
            .filter { !$0.path.contains(UInt8(ascii: "\t")) && !$0.path.contains(UInt8(ascii: "\n")) }
            .sorted { $0.path.lexicographicallyPrecedes($1.path) }[...]
        var line: [UInt8] = []
        var previous: [UInt8]?
        try old.forEachLine { bytes, _ throws(FileSystemError) in
            let text = UnsafeBufferPointer(rebasing: bytes[..<(bytes.last == 0x0A ? bytes.count - 1 : bytes.count)])
            guard headerRead else {
                headerRead = text.starts(with: firstLine)
                readable = headerRead
                if headerRead { try file.append(Array("\(header) \(scannedAt)\n".utf8)) }
                return headerRead
            }
            if text.isEmpty { return true }
            guard let tab = text.lastIndex(of: UInt8(ascii: "\t")) else {
                readable = false
                return false
            }
            var fields = 0
            for byte in text where byte == UInt8(ascii: "\t") { fields += 1 }
            // The path is the seventh field (it holds no tab).
            let path = text[(tab + 1)...]
            guard fields == 6, previous.map({ $0.lexicographicallyPrecedes(path) }) ?? true else {
                readable = false
                return false
            }
            previous = previous ?? []
            previous!.removeAll(keepingCapacity: true)
            previous!.append(contentsOf: path)
            while let next = pending.first, next.path.lexicographicallyPrecedes(path) {
                line.removeAll(keepingCapacity: true)
                append(next.path, next.entry, to: &line)
                try file.append(line)
                pending.removeFirst()
            }
            if pending.first?.path.elementsEqual(path) == true || removed.contains(previous!) { return true }
            try file.append(text)
            try file.append(CollectionOfOne(UInt8(ascii: "\n")))
            return true
        }
        guard readable, headerRead else { return false }
        for next in pending {
            line.removeAll(keepingCapacity: true)
            append(next.path, next.entry, to: &line)
            try file.append(line)
        }
        return true
    }

    /// Reads a serialized cache; an unreadable one gives an empty cache (it only costs time).
    package init(serialized bytes: [UInt8]) {
        self.init()
        var lines = bytes.split(separator: UInt8(ascii: "\n"))[...]
        guard let first = lines.popFirst() else { return }
        let header = String(decoding: first, as: UTF8.self)
        guard header.hasPrefix(Self.header + " "), let time = Int64(header.dropFirst(Self.header.count + 1)) else {
            return
        }
        scannedAt = time
        for line in lines {
            let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 6, omittingEmptySubsequences: false)
            guard fields.count == 7 else { continue }
            func number<T: FixedWidthInteger>(_ index: Int) -> T? { T(String(decoding: fields[index], as: UTF8.self)) }
            let sha1 = String(decoding: fields[0], as: UTF8.self)
            guard sha1.utf8.count == 40, let device: UInt64 = number(1), let inode: UInt64 = number(2),
                let size: Int = number(3), let modified: Int64 = number(4), let changed: Int64 = number(5)
            else { continue }
            let status = FileStatus(
                kind: .regular, device: device, inode: inode, size: size, modified: modified, changed: changed)
            entries[Array(fields[6])] = Entry(status: status, sha1: sha1)
        }
    }
}
