@preconcurrency import Foundation
import LadderImaging

extension Directory {
    /// A file written a piece at a time (`append`) into a temporary file of this folder, then
    /// put in place of `name` by `commit()`, so that `name` only ever holds the old content or
    /// the whole new one, as `writeAtomically(_:to:)` writes it; memory stays at two buffers
    /// whatever the file's size. A file never committed is deleted.
    ///
    /// The file already at `name` is read alongside, a buffer at a time, for as long as it
    /// agrees with what is written: when it holds the same bytes, `commit()` leaves it in place
    /// with no flush and no second read of either file (a million images' manifest is 1.8 GB).
    package final class StreamedFile {
        /// The folder and the name the file will have.
        package let folder: Directory
        package let name: String
        private let temporary: String
        private var file: Int32
        private var buffer: [UInt8] = []
        private var done = false
        /// The file at `name` when the new one began, positioned after the bytes that agree so
        /// far; -1 when there is none, or once the two differ.
        private var present: Int32 = -1
        private var presentBuffer: [UInt8] = []

        /// Bytes gathered before they are written.
        static let bufferBytes = 1 << 20

        fileprivate init(folder: Directory, name: String) throws(FileSystemError) {
            self.folder = folder
            self.name = name
            temporary = folder.temporaryName(for: name)
            file = openat(folder.descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard file >= 0 else { throw FileSystemError.current("write", FilePath.join(folder.path, name)) }
            present = openat(folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            var info = stat()
            if present >= 0 && (fstat(present, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG) { stopComparing() }
        }

        deinit {
            if file >= 0 { close(file) }
            stopComparing()
            if !done { unlinkat(folder.descriptor, temporary, 0) }
        }

        /// Adds `bytes` at the end of the file.
        package func append(_ bytes: some Collection<UInt8>) throws(FileSystemError) {
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.bufferBytes { try writeBuffer() }
        }

        private func writeBuffer() throws(FileSystemError) {
            if present >= 0 && !presentContinues(with: buffer) { stopComparing() }
            guard Directory.writeAll(buffer, to: file) else {
                throw FileSystemError.current("write", FilePath.join(folder.path, name))
            }
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes what was appended, and tells whether the file at `name` holds exactly those
        /// bytes, as `commit()` then finds. Nothing may be appended after.
        package func matchesPresent() throws(FileSystemError) -> Bool {
            try writeBuffer()
            // A present file that has not ended is read one byte further: it can no longer agree.
            if present >= 0 && !presentHasEnded() { stopComparing() }
            return present >= 0
        }

        /// Flushes the file to disk and renames it over `name`, unless `name` already holds the
        /// same bytes (then the file is deleted unflushed and `name` left as it is). Returns
        /// whether `name` was replaced. Call the folder's `synchronize()` once the rename must
        /// be durable.
        package func commit() throws(FileSystemError) -> Bool {
            let target = FilePath.join(folder.path, name)
            try writeBuffer()
            if present >= 0 && presentHasEnded() {
                stopComparing()
                close(file)
                file = -1
                unlinkat(folder.descriptor, temporary, 0)
                done = true
                return false
            }
            stopComparing()
            // A failed fsync is never retried: the kernel may already have dropped the data.
            let flushed = fsync(file) == 0
            let flushFailure = flushed ? nil : FileSystemError.current("flush", target)
            let closed = close(file) == 0
            file = -1
            if let flushFailure { throw flushFailure }
            guard closed else { throw FileSystemError.current("write", target) }
            guard renameat(folder.descriptor, temporary, folder.descriptor, name) == 0 else {
                throw FileSystemError.current("rename into place", target)
            }
            done = true
            return true
        }

        /// Reads as many bytes of the present file as `bytes` holds; true when they are `bytes`.
        private func presentContinues(with bytes: [UInt8]) -> Bool {
            if bytes.isEmpty { return true }
            if presentBuffer.count < bytes.count { presentBuffer = [UInt8](repeating: 0, count: bytes.count) }
            let filled = presentBuffer.withUnsafeMutableBytes {
                Directory.readFully(present, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<bytes.count]))
            }
            if filled < bytes.count { return false }
            return bytes.withUnsafeBytes { new in
                presentBuffer.withUnsafeBytes { old in memcmp(new.baseAddress!, old.baseAddress!, bytes.count) == 0 }
            }
        }

        /// True when the present file has no byte left to read.
        private func presentHasEnded() -> Bool {
            var byte: UInt8 = 0
            while true {
                let count = read(present, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                return count == 0
            }
        }

        private func stopComparing() {
            if present >= 0 { close(present) }
            present = -1
        }
    }

    /// A file `name` to write a piece at a time and then put in place (`StreamedFile`).
    package func streamedFile(_ name: String) throws(FileSystemError) -> StreamedFile {
        try StreamedFile(folder: self, name: name)
    }
}
