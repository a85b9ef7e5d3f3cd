internal import CVips

/// Hashes computed with GLib's GChecksum (GLib comes with libvips).
package struct Checksum: ~Copyable {
    package enum Algorithm: Sendable {
        case sha1
        case sha256

        var glibType: GChecksumType {
            switch self {
            case .sha1: G_CHECKSUM_SHA1
            case .sha256: G_CHECKSUM_SHA256
            }
        }
    }

    private let state: OpaquePointer

    package init(_ algorithm: Algorithm) {
        state = g_checksum_new(algorithm.glibType)
    }

    deinit { g_checksum_free(state) }

    /// Feeds more bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        g_checksum_update(state, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The digest of everything fed so far, as lowercase hexadecimal.
    package consuming func hexDigest() -> String {
        String(cString: g_checksum_get_string(state))
    }

    /// The digest of everything fed so far, as its bytes.
    package consuming func digest() -> [UInt8] {
        var length = 64
        var bytes = [UInt8](repeating: 0, count: length)
        g_checksum_get_digest(state, &bytes, &length)
        return Array(bytes[..<length])
    }

    /// The lowercase hexadecimal digest of `bytes`.
    package static func hex(_ algorithm: Algorithm, of bytes: some Collection<UInt8>) -> String {
        fed(algorithm, bytes).hexDigest()
    }

    /// The digest of `bytes`, as its bytes.
    package static func digest(_ algorithm: Algorithm, of bytes: some Collection<UInt8>) -> [UInt8] {
        fed(algorithm, bytes).digest()
    }

    private static func fed(_ algorithm: Algorithm, _ bytes: some Collection<UInt8>) -> Checksum {
        var checksum = Checksum(algorithm)
        let done: Void? = bytes.withContiguousStorageIfAvailable { checksum.update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { checksum.update($0) } }
        return checksum
    }
}
