@preconcurrency import Foundation
import LadderImaging

extension Directory {
    /// A file written a piece at a time (`append`) into a temporary file of this folder, then
    /// put in place of `name` by `commit()`, so that `name` only ever holds the old content or
    /// the whole new one, as `writeAtomically(_:to:)` writes it; memory stays at one buffer
    /// whatever the file's size. A file never committed is deleted.
    package final class StreamedFile {
        /// The folder and the name the file will have.
        package let folder: Directory
        package let name: String
        private let temporary: String
        private var file: Int32
        private var buffer: [UInt8] = []
        private var size = 0
        private var done = false

        /// Bytes gathered before they are written.
        static let bufferBytes = 1 << 20

        fileprivate init(folder: Directory, name: String) throws(FileSystemError) {
            self.folder = folder
            self.name = name
            temporary = folder.temporaryName(for: name)
            file = openat(folder.descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard file >= 0 else { throw FileSystemError.current("write", FilePath.join(folder.path, name)) }
        }

        deinit {
            if file >= 0 { close(file) }
            if !done { unlinkat(folder.descriptor, temporary, 0) }
        }

        /// Adds `bytes` at the end of the file.
        package func append(_ bytes: some Collection<UInt8>) throws(FileSystemError) {
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.bufferBytes { try writeBuffer() }
        }

        private func writeBuffer() throws(FileSystemError) {
            guard Directory.writeAll(buffer, to: file) else {
                throw FileSystemError.current("write", FilePath.join(folder.path, name))
            }
            size += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }

        /// Flushes the file to disk and renames it over `name`, unless `name` already holds the
        /// same bytes (then the file is deleted and `name` left as it is). Returns whether
        /// `name` was replaced. Call the folder's `synchronize()` once the rename must be durable.
        package func commit() throws(FileSystemError) -> Bool {
            let target = FilePath.join(folder.path, name)
            try writeBuffer()
            // A failed fsync is never retried: the kernel may already have dropped the data.
            let flushed = fsync(file) == 0
            let flushFailure = flushed ? nil : FileSystemError.current("flush", target)
            let closed = close(file) == 0
            file = -1
            if let flushFailure { throw flushFailure }
            guard closed else { throw FileSystemError.current("write", target) }
            if let present = try? folder.digest(of: name, .sha256), present.bytes == size,
                try folder.digest(of: temporary, .sha256).hex == present.hex
            {
                return false
            }
            guard renameat(folder.descriptor, temporary, folder.descriptor, name) == 0 else {
                throw FileSystemError.current("rename into place", target)
            }
            done = true
            return true
        }
    }

    /// A file `name` to write a piece at a time and then put in place (`StreamedFile`).
    package func streamedFile(_ name: String) throws(FileSystemError) -> StreamedFile {
        try StreamedFile(folder: self, name: name)
    }
}
