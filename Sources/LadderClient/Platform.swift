// Everything that differs between Apple platforms and Linux, in one place: where URLSession
// lives, which SHA-256 the client checks files with, and the C library's rename.
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Puts `source` in `target`'s place in one step, replacing what was there (rename(2));
/// Foundation's replaceItemAt on Linux deletes the file it replaces and moves nothing in its place
/// (swift-corelibs-foundation of Swift 6.3).
func replaceFile(_ target: URL, with source: URL) throws {
    guard rename(source.path, target.path) == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
    }
}

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
