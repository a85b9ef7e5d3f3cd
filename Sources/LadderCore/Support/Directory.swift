@preconcurrency import Foundation
import LadderManifest
import Synchronization

/// An open folder. Everything ladder writes goes through one of these, relative to its file
/// descriptor and never following a symbolic link, so a link planted inside the output folder
/// cannot send a write elsewhere.
package final class Directory: @unchecked Sendable {
    // @unchecked: the descriptor is immutable after init and the calls made on it are thread-safe.

    /// The folder's path, for messages.
    package let path: String
    let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Opens an existing folder. The folder itself may be reached through symbolic links (a
    /// build folder on another disk); what lies inside it is never followed.
    package static func open(_ path: String) throws(FileSystemError) -> Directory {
        let descriptor = Platform.openDirectory(path)
        guard descriptor >= 0 else { throw FileSystemError.current("open folder", path) }
        return Directory(path: path, descriptor: descriptor)
    }

    /// Opens a folder, creating it and its parents when missing.
    package static func create(_ path: String) throws(FileSystemError) -> Directory {
        var prefix = path.hasPrefix("/") ? "" : "."
        for segment in path.split(separator: "/") {
            prefix += "/" + segment
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw FileSystemError.current("create folder", prefix)
            }
        }
        return try open(path)
    }

    /// Opens the child folder `name`, creating it when `create` is set; refuses a symbolic link.
    package func subdirectory(_ name: String, create: Bool) throws(FileSystemError) -> Directory {
        let childPath = FilePath.join(path, name)
        if create && mkdirat(descriptor, name, 0o755) != 0 && errno != EEXIST {
            throw FileSystemError.current("create folder", childPath)
        }
        let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard child >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw FileSystemError(
                    operation: "open folder", path: childPath, code: errno,
                    reason: "it is a symbolic link or not a folder; ladder does not write through links")
            }
            throw FileSystemError.current("open folder", childPath)
        }
        return Directory(path: childPath, descriptor: child)
    }

    // MARK: - Reading

    /// What is at `name`, without following a symbolic link; nil when nothing is.
    package func status(of name: String) throws(FileSystemError) -> FileStatus? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileSystemError.current("inspect", FilePath.join(path, name))
        }
        return FileStatus(info)
    }

    /// What is at `path`, following symbolic links; nil when nothing is.
    package static func status(atPath path: String) -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStatus(info)
    }

    /// The names in this folder, sorted by their bytes unless `sorted` is false, without "." and
    /// "..", and without names that are not valid UTF-8 (see `listing()`).
    package func entries(sorted: Bool = true) throws(FileSystemError) -> [String] {
        try listing(sorted: sorted).names
    }

    /// The names in this folder, sorted by their bytes unless `sorted` is false, and how many
    /// names are not valid UTF-8 (such names cannot be written in a manifest, so they are left out).
    package func listing(sorted: Bool = true) throws(FileSystemError) -> (names: [String], undecodable: Int) {
        let (entries, undecodable) = try kindedListing()
        let names = entries.map(\.name)
        guard sorted else { return (names, undecodable) }
        // By bytes: names that differ only by Unicode normalization stay distinct and ordered.
        return (names.sorted { $0.utf8Precedes($1) }, undecodable)
    }

    /// The names in this folder in the order the file system gives them, each with its kind as
    /// the listing tells it (nil when the file system does not, and `status(of:)` must), and
    /// how many names are not valid UTF-8: a walk of a large folder without a call per name.
    package func kindedListing() throws(FileSystemError) -> (
        entries: [(name: String, kind: FileStatus.Kind?)], undecodable: Int
    ) {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            throw FileSystemError.current("list", path)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var entries: [(name: String, kind: FileStatus.Kind?)] = []
        var undecodable = 0
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
                String(validating: raw[..<(raw.firstIndex(of: 0) ?? raw.count)], as: UTF8.self)
            }
            guard let name else {
                undecodable += 1
                continue
            }
            guard name != "." && name != ".." else { continue }
            entries.append((name, FileStatus.Kind(directoryEntryType: entry.pointee.d_type)))
        }
        return (entries, undecodable)
    }

    /// Reads the regular file `name` whole, refusing symbolic links, special files (a FIFO
    /// would block forever) and files larger than `limit` bytes.
    package func readFile(_ name: String, limit: Int = Int.max) throws(FileSystemError) -> [UInt8] {
        let file = try openForReading(name)
        defer { close(file) }
        return try Self.readAll(file, path: FilePath.join(path, name), limit: limit)
    }

    /// Reads the regular file at `path` whole, as `readFile` does (no symbolic link, no special
    /// file, at most `limit` bytes).
    package static func readFile(atPath path: String, limit: Int = Int.max) throws(FileSystemError) -> [UInt8] {
        try Self.open(FilePath.parent(path)).readFile(FilePath.name(path), limit: limit)
    }

    /// Opens `name` for reading without following a symbolic link; the caller closes it.
    func openForReading(_ name: String) throws(FileSystemError) -> Int32 {
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else {
            let filePath = FilePath.join(path, name)
            if errno == ELOOP {
                throw FileSystemError(operation: "read", path: filePath, code: errno, reason: "it is a symbolic link")
            }
            throw FileSystemError.current("read", filePath)
        }
        return file
    }

    /// Reads at most the first `count` bytes of the regular file `name` (no link, no special file).
    package func readPrefix(_ name: String, count: Int) throws(FileSystemError) -> [UInt8] {
        let filePath = FilePath.join(path, name)
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { throw FileSystemError.current("read", filePath) }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileSystemError(operation: "read", path: filePath, code: 0, reason: "not a regular file")
        }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = Self.readFully(file, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Reads from the open `file` until `buffer` is full, the file ends or a read fails; returns
    /// how many bytes were read.
    static func readFully(_ file: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count {
            let received = Platform.read(file, buffer.baseAddress! + filled, buffer.count - filled)
            if received < 0 && errno == EINTR { continue }
            if received <= 0 { break }
            filled += received
        }
        return filled
    }

    /// Refuses a file of `size` bytes when that is over `limit`.
    static func checkSize(_ size: Int, limit: Int, path: @autoclosure () -> String) throws(FileSystemError) {
        guard size <= limit else {
            throw FileSystemError(
                operation: "read", path: path(), code: 0,
                reason: "the file has \(size) bytes, over the limit of \(limit)"
            )
        }
    }

    /// The size of an open file, checked to be a regular file within `limit` bytes.
    static func regularFileSize(
        _ file: Int32, path: @autoclosure () -> String, limit: Int
    ) throws(FileSystemError) -> Int {
        var info = stat()
        guard fstat(file, &info) == 0 else { throw FileSystemError.current("inspect", path()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileSystemError(operation: "read", path: path(), code: 0, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        try checkSize(size, limit: limit, path: path())
        return size
    }

    /// Opens the regular file at `path` to be read piece by piece, with the checks of `readFile`
    /// (no symbolic link, no special file, at most `limit` bytes); the caller closes it.
    package static func openToRead(atPath path: String, limit: Int = Int.max) throws(FileSystemError) -> Int32 {
        let folder = try Self.open(FilePath.parent(path))
        let file = try folder.openForReading(FilePath.name(path))
        do {
            _ = try regularFileSize(file, path: FilePath.join(folder.path, FilePath.name(path)), limit: limit)
        } catch {
            close(file)
            throw error
        }
        return file
    }

    /// Reads an open file whole after checking it is a regular file within `limit` bytes.

    static func readAll(_ file: Int32, path: @autoclosure () -> String, limit: Int) throws(FileSystemError) -> [UInt8] {
        let size = try regularFileSize(file, path: path(), limit: limit)
        // Read straight into the array's storage: no zero-filling of what is about to be read.
        var failure: FileSystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < size {
                let count = read(file, buffer.baseAddress! + initialized, size - initialized)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = FileSystemError.current("read", path())
                    return
                }
                if count == 0 { break }  // the file shrank while being read
                initialized += count
            }
        }
        if let failure { throw failure }
        guard bytes.count == size else {
            throw FileSystemError(
                operation: "read", path: path(), code: 0, reason: "the file changed size while being read")
        }
        return bytes

    }

    // MARK: - Writing

    /// The prefix of temporary files; a run that is killed leaves such files, and the next one
    /// deletes them.
    package static let temporaryPrefix = ".ladder-tmp-"

    /// Writes `bytes` to `name` so that `name` only ever holds the old content or the whole new
    /// content: a temporary file in the same folder, flushed to disk, then renamed over `name`.
    /// Call `synchronize()` once the folder's renames must be durable.
    package func writeAtomically(_ bytes: [UInt8], to name: String) throws(FileSystemError) {
        let temporary = try writeTemporary(bytes, for: name)
        guard renameat(descriptor, temporary, descriptor, name) == 0 else {
            let failure = FileSystemError.current("rename into place", FilePath.join(path, name))
            unlinkat(descriptor, temporary, 0)
            throw failure
        }
    }

    /// How many files `writeAtomically(_:)` flushes at once. A disk makes several files durable
    /// in about the time of one (the file system commits their flushes together), so the index's
    /// 257 files no longer wait for one flush each (docs/BENCHMARKS.md, "Writing the index").
    package static let concurrentFlushes = 8

    /// Writes several files, each as `writeAtomically(_:to:)` writes one (only ever the old
    /// content or the whole new one), and renames them into place in the order given, so that
    /// whoever sees a file sees every file before it too. Every file is written and flushed
    /// before the first is renamed, `concurrentFlushes` at a time; when one cannot be written,
    /// none is renamed and no temporary file is left. Call `synchronize()` once the renames
    /// must be durable.
    package func writeAtomically(_ files: [(name: String, bytes: [UInt8])]) throws(FileSystemError) {
        let temporaries = try writeTemporaries(files)
        try rename(temporaries, to: files.map(\.name))
    }

    /// Writes each file to a temporary file of its own in this folder, flushed,
    /// `concurrentFlushes` at a time, and returns their names in order, for `rename(_:to:)`.
    /// When one cannot be written, none is left.
    package func writeTemporaries(_ files: [(name: String, bytes: [UInt8])]) throws(FileSystemError) -> [String] {
        let written = Mutex<(temporaries: [String?], failure: FileSystemError?)>(
            (Array(repeating: nil, count: files.count), nil))
        ParallelRunner.run(count: files.count, width: Self.concurrentFlushes) { index in
            do throws(FileSystemError) {
                let temporary = try self.writeTemporary(files[index].bytes, for: files[index].name)
                written.withLock { $0.temporaries[index] = temporary }
                return true
            } catch {
                written.withLock { $0.failure = $0.failure ?? error }
                return false
            }
        }
        let (temporaries, failure) = written.withLock { $0 }
        if let failure {
            for case let temporary? in temporaries { unlinkat(descriptor, temporary, 0) }
            throw failure
        }
        return temporaries.compactMap { $0 }
    }

    /// Renames the `temporaries` (`writeTemporaries(_:)`) to `names` in order, so that whoever
    /// sees a file sees every file before it too; when one cannot be renamed, it and the rest
    /// are deleted.
    package func rename(_ temporaries: [String], to names: [String]) throws(FileSystemError) {
        for (index, name) in names.enumerated() {
            guard renameat(descriptor, temporaries[index], descriptor, name) == 0 else {
                let failure = FileSystemError.current("rename into place", FilePath.join(path, name))
                for left in temporaries[index...] { unlinkat(descriptor, left, 0) }
                throw failure
            }
        }
    }

    /// Writes `bytes` to `name` only if no file of that name exists, whole or not at all (a
    /// temporary file, flushed, then linked to `name`, which fails if the name is taken).
    /// - Returns: false when `name` already exists; nothing is written then.
    package func createAtomically(_ bytes: [UInt8], as name: String) throws(FileSystemError) -> Bool {
        let temporary = try writeTemporary(bytes, for: name)
        defer { unlinkat(descriptor, temporary, 0) }
        if linkat(descriptor, temporary, descriptor, name, 0) == 0 {
            try synchronize()
            return true
        }
        if errno == EEXIST { return false }
        guard errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS else {
            throw FileSystemError.current("create", FilePath.join(path, name))
        }
        // No hard links on this file system: claim the name exclusively, then fill it.
        let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else {
            if errno == EEXIST { return false }
            throw FileSystemError.current("create", FilePath.join(path, name))
        }
        close(file)
        guard renameat(descriptor, temporary, descriptor, name) == 0 else {
            throw FileSystemError.current("rename into place", FilePath.join(path, name))
        }
        return true
    }

    /// A name for a new temporary file in this folder, named after `name`.
    func temporaryName(for name: String) -> String {
        "\(Self.temporaryPrefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)"
    }

    /// Writes all of `bytes` to the open `file`, again after an interruption; false, with
    /// `errno` set, when it cannot.
    static func writeAll(_ bytes: [UInt8], to file: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = write(file, raw.baseAddress! + written, raw.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
    }

    /// Writes `bytes` to a new temporary file in this folder, named after `name`, flushed to
    /// disk; returns its name. Nothing is left behind when this fails.
    private func writeTemporary(_ bytes: [UInt8], for name: String) throws(FileSystemError) -> String {
        let target = FilePath.join(path, name)
        let temporary = temporaryName(for: name)
        let file = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw FileSystemError.current("write", target) }
        var failure = Self.writeAll(bytes, to: file) ? nil : FileSystemError.current("write", target)
        // A failed fsync is never retried: the kernel may already have dropped the data.
        if failure == nil && fsync(file) != 0 { failure = FileSystemError.current("flush", target) }
        if close(file) != 0 && failure == nil { failure = FileSystemError.current("write", target) }
        if let failure {
            unlinkat(descriptor, temporary, 0)
            throw failure
        }
        return temporary
    }

    /// Makes the folder's entries (renames, deletions) durable.
    package func synchronize() throws(FileSystemError) {
        guard fsync(descriptor) == 0 else { throw FileSystemError.current("flush folder", path) }
    }

    /// Deletes the file `name`; nothing happens when it is already gone.
    package func removeFile(_ name: String) throws(FileSystemError) {
        guard unlinkat(descriptor, name, 0) == 0 || errno == ENOENT else {
            throw FileSystemError.current("delete", FilePath.join(path, name))
        }
    }

    /// Deletes the child folder `name` when it is empty; returns whether it did.
    @discardableResult
    package func removeFolderIfEmpty(_ name: String) -> Bool {
        unlinkat(descriptor, name, AT_REMOVEDIR) == 0
    }

    // MARK: - Locking

    /// Takes a lock (flock) on the regular file `name` in this folder, creating it when
    /// missing: exclusive unless `shared`, waiting for another holder when `wait` is set. The
    /// lock lasts as long as the returned value; the kernel releases it when the process ends,
    /// however it ends. A file rather than a folder, since NFS honours locks on files only.
    ///
    /// - Returns: nil when the file is locked and `wait` is not set.
    package func lockFile(_ name: String, wait: Bool, shared: Bool = false) throws(FileSystemError) -> FileLock? {
        let file = openat(descriptor, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw FileSystemError.current("lock", FilePath.join(path, name)) }
        let lock = FileLock(descriptor: file)
        let operation = (shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        guard try Self.flockRetrying(file, operation, path: FilePath.join(path, name)) else { return nil }
        return lock
    }

    private static func flockRetrying(
        _ descriptor: Int32, _ operation: Int32, path: String
    ) throws(FileSystemError)
        -> Bool
    {
        while flock(descriptor, operation) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw FileSystemError.current("lock", path)
        }
        return true
    }
}

/// The parts of `stat` ladder uses.
package struct FileStatus: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Codable {
        case regular, directory, symbolicLink, other

        /// The kind a folder listing's `d_type` names; nil for `DT_UNKNOWN`, which some file
        /// systems give for every name.
        init?(directoryEntryType type: UInt8) {
            switch Int32(type) {
            case Int32(DT_REG): self = .regular
            case Int32(DT_DIR): self = .directory
            case Int32(DT_LNK): self = .symbolicLink
            case Int32(DT_UNKNOWN): return nil
            default: self = .other
            }
        }
    }

    package var kind: Kind
    package var device: UInt64
    package var inode: UInt64
    package var size: Int
    /// Modification and status-change times, in nanoseconds since 1970.
    package var modified: Int64
    package var changed: Int64

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
        (modified, changed) = Platform.times(of: info)
    }

    package init(kind: Kind, device: UInt64, inode: UInt64, size: Int, modified: Int64, changed: Int64) {
        self.kind = kind
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }
}

/// A lock held on an open file; released when this is released (or the process ends).
package final class FileLock: Sendable {
    private let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }
}
