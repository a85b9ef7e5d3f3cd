// Everything that differs between Apple platforms and Linux, in one place: where URLSession
// lives, which SHA-256 the client checks files with, and which image formats the system decodes.
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

extension LadderClient {
    /// The formats besides JPEG that the system's image decoder (ImageIO) reads on this
    /// platform: WebP from iOS 14 and macOS 11, AVIF from iOS 16 and macOS 13, JPEG XL from
    /// iOS 17 and macOS 14. None elsewhere (other systems, and Linux, where the app decodes with
    /// what it links: it says what that reads with `formats`).
    public static var platformFormats: Set<String> {
        #if os(iOS) || os(macOS)
            var formats: Set<String> = []
            if #available(iOS 14, macOS 11, *) { formats.insert("webp") }
            if #available(iOS 16, macOS 13, *) { formats.insert("avif") }
            if #available(iOS 17, macOS 14, *) { formats.insert("jxl") }
            return formats
        #else
            return []
        #endif
    }
}
