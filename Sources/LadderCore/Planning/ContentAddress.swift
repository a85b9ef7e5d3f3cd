package import LadderImaging

/// Where variant files go: named after the SHA1 of the source's bytes, never after the
/// source's name, so that a client can find them from the manifest alone, identical sources
/// share files, and a renamed source costs nothing.
///
/// `<first 2 hex digits>/<sha1>-<variant>-<first 8 hex digits of the recipe fingerprint>.jpg`,
/// for example `3f/3fa4…c2-full-9b1e04d2.jpg`. A new recipe gives a new name, so caches that
/// keep files forever never serve an outdated variant. A variant's format siblings have the
/// same name with their format's extension (`.webp`, `.avif`, `.jxl`): the recipe fingerprint
/// covers the formats and how each is encoded.
package enum ContentAddress {
    /// The variant's path relative to the output folder: its JPEG rung, or with `format` its
    /// sibling in that format.
    package static func path(
        sha1: String, variant: String, fingerprint: String, format: SiblingFormat? = nil
    ) -> String {
        "\(sha1.prefix(2))/\(sha1)-\(variant)-\(fingerprint.prefix(8)).\(format?.fileExtension ?? "jpg")"
    }

    /// The extensions of the files ladder writes: JPEG rungs and their siblings.
    static let extensions = [Array(".jpg".utf8)] + SiblingFormat.allCases.map { Array(".\($0.fileExtension)".utf8) }

    /// True for a path relative to the output folder that ladder could have written; only such
    /// files are ever deleted as stale.
    package static func isVariantPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        // "xx/" + 40 hex + "-" + name (1 or more) + "-" + 8 hex + ".jpg" (or a sibling's extension)
        guard let suffix = extensions.first(where: { bytes.count > $0.count && bytes.suffix($0.count) == $0 }),
            bytes.count >= 3 + 40 + 1 + 1 + 1 + 8 + suffix.count, bytes[2] == UInt8(ascii: "/"),
            bytes[0] == bytes[3], bytes[1] == bytes[4], bytes[0..<2].allSatisfy(isHex)
        else { return false }
        let name = bytes[3..<(bytes.count - suffix.count)]
        let sha1 = name.prefix(40)
        let fingerprint = name.suffix(8)
        let middle = name.dropFirst(40).dropLast(8)
        return sha1.allSatisfy(isHex) && fingerprint.allSatisfy(isHex) && middle.count >= 3
            && middle.first == UInt8(ascii: "-") && middle.last == UInt8(ascii: "-")
            && !middle.contains(UInt8(ascii: "/"))
    }

    /// The folder and file name of a variant path ("3f", "3fa4…-full-9b1e04d2.jpg").
    static func split(_ path: String) -> (folder: String, name: String)? {
        guard let slash = path.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    private static func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte) }
}
