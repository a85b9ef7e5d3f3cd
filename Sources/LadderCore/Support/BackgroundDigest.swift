import Dispatch
import LadderImaging

/// A checksum taken on a thread of its own, fed a buffer at a time, so that hashing a large file
/// overlaps with writing it (a million images' manifest is 1.8 GB, about 3 s of SHA-1 on this
/// project's machine). At most `depth` buffers wait to be hashed, so memory stays at a few
/// buffers however fast the caller feeds it.
final class BackgroundDigest: @unchecked Sendable {
    private let queue = DispatchQueue(label: "ladder.digest")
    private let slots: DispatchSemaphore
    /// Touched only on `queue`.
    private var checksum: Checksum?
    /// Gathered on the caller's thread until a buffer is full.
    private var pending: [UInt8] = []

    /// Bytes hashed at a time.
    static let bufferBytes = 1 << 20

    init(_ algorithm: Checksum.Algorithm, depth: Int = 4) {
        checksum = Checksum(algorithm)
        slots = DispatchSemaphore(value: depth)
        pending.reserveCapacity(Self.bufferBytes)
    }

    /// Feeds more bytes (on the caller's thread, which alone feeds it).
    func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        pending.append(contentsOf: bytes)
        if pending.count >= Self.bufferBytes { send() }
    }

    /// The digest of everything fed, as lowercase hexadecimal, once it is all hashed. Nothing
    /// may be fed after.
    func hexDigest() -> String {
        send()
        return queue.sync { checksum.take()!.hexDigest() }
    }

    /// Hands what was gathered to the queue, once one of its `depth` places is free.
    private func send() {
        guard !pending.isEmpty else { return }
        slots.wait()
        let piece = pending
        pending = []
        pending.reserveCapacity(Self.bufferBytes)
        queue.async {
            piece.withUnsafeBytes { self.checksum!.update($0) }
            self.slots.signal()
        }
    }
}
