// Everything that differs between Apple platforms and Linux, in one place: where URLSession
// lives, and which SHA-256 the client checks files with.
import Foundation

#if canImport(FoundationNetworking)
    // On Linux, URLSession and its types live in FoundationNetworking.
    @_exported public import FoundationNetworking
#endif

#if canImport(CryptoKit)
    import CryptoKit

    /// SHA-256 of `data` as 64 lowercase hex digits, by CryptoKit.
    func sha256Hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
#else
    /// SHA-256 of `data` as 64 lowercase hex digits. Linux has no system SHA-256 that a
    /// Foundation-only module can reach, so the client carries FIPS 180-4's.
    func sha256Hex(_ data: Data) -> String {
        SHA256Digest.hex(of: data)
    }
#endif
