import Foundation

/// The bytes of one file as they arrive: one block of the file's length, only ever appended to,
/// so that every reader takes a prefix without a copy while more arrives.
final class DownloadBuffer: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`; bytes below `count` never change.
    private let lock = NSLock()
    private let storage: UnsafeMutableRawBufferPointer
    private var count = 0

    init(capacity: Int) {
        storage = .allocate(byteCount: max(1, capacity), alignment: 16)
        self.capacity = max(0, capacity)
    }

    deinit { storage.deallocate() }

    /// The file's length: the most bytes the buffer takes.
    let capacity: Int

    /// The bytes that have arrived.
    var received: Int { lock.withLock { count } }

    /// Appends `data`; false (and nothing appended) when it would pass the file's length.
    func append(_ data: Data) -> Bool {
        lock.withLock {
            guard count + data.count <= capacity else { return false }
            data.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress else { return }
                (storage.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
            }
            count += data.count
            return true
        }
    }

    /// True when `data` equals the bytes held from `offset` on (as far as they go).
    func matches(_ data: Data, at offset: Int) -> Bool {
        let held = lock.withLock { count }
        let length = min(data.count, max(0, held - offset))
        guard length > 0 else { return true }
        return data.prefix(length).withUnsafeBytes { bytes in
            memcmp(bytes.baseAddress!, storage.baseAddress! + offset, length) == 0
        }
    }

    /// The first `length` bytes (at most those received), without a copy: the `Data` keeps the
    /// buffer alive.
    func prefix(_ length: Int) -> Data {
        let length = min(length, received)
        guard length > 0 else { return Data() }
        return Data(
            bytesNoCopy: storage.baseAddress!, count: length,
            deallocator: .custom { [self] _, _ in withExtendedLifetime(self) {} })
    }
}
