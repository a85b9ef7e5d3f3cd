import Foundation

extension Directory {
    /// A regular file opened for reading and read a piece at a time through one buffer, a line
    /// or a byte range at a time, so that a file of any size (a million images' manifest is
    /// 1.8 GB) costs a buffer, not its size. The file is closed when nothing holds it.
    package final class OpenFile {
        /// The file's path, for messages.
        package let path: String
        /// Its status when it was opened (what a build record's identity compares).
        package let status: FileStatus
        private let descriptor: Int32

        /// Bytes read at a time.
        static let chunkBytes = 1 << 20

        fileprivate init(folder: Directory, name: String) throws(FileSystemError) {
            path = FilePath.join(folder.path, name)
            descriptor = try folder.openForReading(name)
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                throw FileSystemError(operation: "read", path: path, code: 0, reason: "not a regular file")
            }
            status = FileStatus(info)
        }

        deinit { close(descriptor) }

        /// Hands `body` each line from the start, with its line feed (the last one has none
        /// when the file does not end with one), and the offset where it starts, until `body`
        /// returns false or the file ends. A line is never cut, whatever its length.
        package func forEachLine(
            _ body: (_ line: UnsafeBufferPointer<UInt8>, _ offset: Int) throws(FileSystemError) -> Bool
        ) throws(FileSystemError) {
            var buffer = [UInt8](repeating: 0, count: Self.chunkBytes)
            var filled = 0
            // The file offset of `buffer[0]`.
            var base = 0
            while true {
                if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
                let received = try buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(FileSystemError) in
                        try fill(UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]), from: base + filled)
                    }
                }.get()
                let ended = filled + received < buffer.count
                filled += received
                var consumed = 0
                let stop = try buffer.withUnsafeBufferPointer { bytes throws(FileSystemError) -> Bool in
                    let start = bytes.baseAddress!
                    while consumed < filled {
                        guard let found = memchr(start + consumed, 0x0A, filled - consumed) else {
                            guard ended else { return false }
                            // The last line, with no line feed.
                            let last = UnsafeBufferPointer(rebasing: bytes[consumed..<filled])
                            defer { consumed = filled }
                            return try !body(last, base + consumed)
                        }
                        let end = start.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                        let line = UnsafeBufferPointer(rebasing: bytes[consumed..<end])
                        let offset = base + consumed
                        consumed = end
                        if try !body(line, offset) { return true }
                    }
                    return false
                }
                if stop || ended { return }
                // Keep the unfinished line at the front of the buffer.
                buffer.withUnsafeMutableBytes { bytes in
                    _ = memmove(bytes.baseAddress!, bytes.baseAddress! + consumed, filled - consumed)
                }
                base += consumed
                filled -= consumed
            }
        }

        /// Hands `body` the bytes of `range` in their order, a buffer at a time; throws when the
        /// file no longer holds them all.
        package func read(
            _ range: Range<Int>, in body: (UnsafeBufferPointer<UInt8>) throws(FileSystemError) -> Void
        ) throws(FileSystemError) {
            var buffer = [UInt8](repeating: 0, count: min(Self.chunkBytes, range.count))
            var at = range.lowerBound
            while at < range.upperBound {
                let wanted = min(buffer.count, range.upperBound - at)
                let received = try buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(FileSystemError) in
                        try fill(UnsafeMutableRawBufferPointer(rebasing: bytes[..<wanted]), from: at)
                    }
                }.get()
                guard received == wanted else {
                    throw FileSystemError(
                        operation: "read", path: path, code: 0, reason: "the file became shorter while it was read")
                }
                try buffer.withUnsafeBufferPointer { bytes throws(FileSystemError) in
                    try body(UnsafeBufferPointer(rebasing: bytes[..<wanted]))
                }
                at += wanted
            }
        }

        /// The bytes of `range`.
        package func bytes(_ range: Range<Int>) throws(FileSystemError) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(range.count)
            try read(range) { bytes.append(contentsOf: $0) }
            return bytes
        }

        /// Reads into `buffer` from `offset` until it is full or the file ends, and tells how
        /// many bytes were read; throws when a read fails.
        private func fill(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int) throws(FileSystemError) -> Int {
            var filled = 0
            while filled < buffer.count {
                let count = pread(
                    descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + filled))
                if count < 0 && errno == EINTR { continue }
                if count < 0 { throw FileSystemError.current("read", path) }
                if count == 0 { break }
                filled += count
            }
            return filled
        }
    }

    /// Opens the regular file `name` for reading a piece at a time (no symbolic link, no
    /// special file).
    package func openFile(_ name: String) throws(FileSystemError) -> OpenFile {
        try OpenFile(folder: self, name: name)
    }
}
