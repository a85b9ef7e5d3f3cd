@preconcurrency import Foundation
package import LadderImaging

extension Directory {
    /// Bytes read at a time when hashing: memory stays at this, whatever the file's size.
    static let digestBufferBytes = 1 << 20

    /// The digest and size of the regular file at `path`, read as a stream through a bounded
    /// buffer (GLib's checksum fed piece by piece). Refuses symbolic links and special files, as
    /// `readFile` does, and files of more than `limit` bytes.
    package static func digest(
        ofFileAtPath path: String, _ algorithm: Checksum.Algorithm, limit: Int = Int.max
    ) throws(FileSystemError) -> (hex: String, bytes: Int) {
        let (hex, bytes, _) = try digest(ofFileAtPath: path, algorithm, limit: limit, keepingFirst: 0)
        return (hex, bytes)
    }

    /// The digest and size of the regular file at `path`, and its first `head` bytes (fewer when
    /// the file is shorter), kept from the same read.
    package static func digest(
        ofFileAtPath path: String, _ algorithm: Checksum.Algorithm, limit: Int = Int.max, keepingFirst head: Int
    ) throws(FileSystemError) -> (hex: String, bytes: Int, head: [UInt8]) {
        // Opening a normalized path itself follows the links of its folders and not a link at
        // its end, as opening its folder and then the name does, without opening the folder.
        let file =
            FilePath.isNormalized(path) && path.hasPrefix("/")
            ? openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1
        guard file >= 0 else {
            // Opened again through its folder, so that a failure is reported as it always was.
            let folder = try Self.open(FilePath.parent(path))
            let reopened = try folder.openForReading(FilePath.name(path))
            defer { close(reopened) }
            return try digest(ofOpen: reopened, path: path, algorithm, limit: limit, keepingFirst: head)
        }
        defer { close(file) }
        return try digest(ofOpen: file, path: path, algorithm, limit: limit, keepingFirst: head)
    }

    /// The digest and size of the open file `file`, whose path is `filePath` (for messages), and
    /// its first `head` bytes.
    private static func digest(
        ofOpen file: Int32, path filePath: String, _ algorithm: Checksum.Algorithm, limit: Int, keepingFirst head: Int
    ) throws(FileSystemError) -> (hex: String, bytes: Int, head: [UInt8]) {
        var info = stat()
        guard fstat(file, &info) == 0 else { throw FileSystemError.current("inspect", filePath) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileSystemError(operation: "read", path: filePath, code: 0, reason: "not a regular file")
        }
        try Self.checkSize(Int(info.st_size), limit: limit, path: filePath)
        var checksum = Checksum(algorithm)
        var total = 0
        var kept: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Self.digestBufferBytes, alignment: MemoryLayout<UInt64>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(file, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError.current("read", filePath)
            }
            if count == 0 { break }
            checksum.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if kept.count < head { kept += buffer[0..<min(count, head - kept.count)] }
            total += count
            // The file grew past the limit while being read.
            try Self.checkSize(total, limit: limit, path: filePath)
        }
        return (checksum.hexDigest(), total, kept)
    }
}
