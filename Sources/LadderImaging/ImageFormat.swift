internal import CVips
import Synchronization

/// The image formats ladder decodes. The file's first bytes decide, never its name.
package enum ImageFormat: String, CaseIterable, Sendable, Codable, Comparable {
    case jpeg, png, webp, gif, tiff, heif

    /// The libvips loader classes for the format (each with its file, buffer and source forms).
    var loaderClass: String {
        switch self {
        case .jpeg: "VipsForeignLoadJpeg"
        case .png: "VipsForeignLoadPng"
        case .webp: "VipsForeignLoadWebp"
        case .gif: "VipsForeignLoadNsgif"
        case .tiff: "VipsForeignLoadTiff"
        case .heif: "VipsForeignLoadHeif"
        }
    }

    /// The libvips loader of the format's bytes in memory, for the formats whose headers are
    /// read from memory by the thousand (sources hashed by `ladder verify`); nil for the others.
    var bufferLoader: String? {
        switch self {
        case .jpeg: "jpegload_buffer"
        case .png: "pngload_buffer"
        default: nil
        }
    }

    /// The libvips module that reads the format (`vips-modules-X.Y/vips-<name>.so`), nil when
    /// libvips reads it itself.
    var libvipsModule: String? {
        self == .heif ? "heif" : nil
    }

    /// The file extensions that name the format (lower case).
    package var extensions: Set<String> {
        switch self {
        case .jpeg: ["jpg", "jpeg", "jpe", "jfif", "mpo"]
        case .png: ["png", "apng"]
        case .webp: ["webp"]
        case .gif: ["gif"]
        case .tiff: ["tif", "tiff"]
        case .heif: ["heic", "heif", "avif", "avifs", "hif"]
        }
    }

    /// The extension files of this format usually have.
    package var preferredExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tif"
        case .heif: "heic"
        default: rawValue
        }
    }

    /// The format an extension names, if any.

    package static func named(byExtension extensionName: String) -> ImageFormat? {
        let lowered = extensionName.lowercased()
        return allCases.first { $0.extensions.contains(lowered) }
    }

    package static func < (lhs: ImageFormat, rhs: ImageFormat) -> Bool { lhs.rawValue < rhs.rawValue }

    /// What a file's first bytes say it is.
    package enum Sniffed: Sendable, Equatable {
        /// A format ladder reads.
        case format(ImageFormat)
        /// Something else that is recognised, described for messages ("an SVG document").
        case other(String)
        /// Nothing recognisable.
        case unknown
    }

    /// Identifies a file by its signature bytes.
    package static func sniff(_ bytes: [UInt8]) -> Sniffed {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if bytes.isEmpty { return .other("an empty file") }
        if starts([0xFF, 0xD8, 0xFF]) { return .format(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .format(.png) }
        if ascii("GIF87a") || ascii("GIF89a") { return .format(.gif) }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return .format(.webp) }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .format(.tiff) }
        if ascii("ftyp", at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"].contains(brand) {
                return .format(.heif)
            }
            return .other("an ISO media file (brand \"\(brand)\")")
        }
        if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            return .other("a JPEG XL image")
        }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
            return .other("a JPEG 2000 image")
        }
        if ascii("%PDF") { return .other("a PDF document") }
        if ascii("BM") && bytes.count > 26 { return .other("a BMP image") }
        if ascii("8BPS") { return .other("a Photoshop document") }
        if starts([0x00, 0x00, 0x01, 0x00]) { return .other("a Windows icon") }
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        if head.contains("<svg") { return .other("an SVG document") }
        if head.contains("<html") || head.contains("<!doctype") { return .other("an HTML document") }
        if bytes.prefix(512).allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) || $0 >= 0x80 }) {
            return .other("text")
        }
        return .unknown
    }
}

extension Imaging {
    /// Lets libvips decode only `formats`: every loader is blocked, the allowed ones are unblocked,
    /// and the loaders libvips flags as untrusted (ImageMagick, SVG, PDF, JPEG 2000...) stay
    /// blocked whatever happens (Wraps vips_operation_block_set() and vips_block_untrusted_set()).
    /// Process-wide: call it before decoding, not while another thread decodes.
    package static func allowLoaders(_ formats: Set<ImageFormat>) {
        allowedLoaders.withLock { $0 = formats }
        vips_operation_block_set("VipsForeignLoad", 1)
        for format in formats { vips_operation_block_set(format.loaderClass, 0) }
        vips_block_untrusted_set(1)
    }
}
