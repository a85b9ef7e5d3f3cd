/// Where variant files go: named after the SHA1 of the source's bytes, never after the
/// source's name, so that a client can find them from the manifest alone, identical sources
/// share files, and a renamed source costs nothing.
///
/// `<first 2 hex digits>/<sha1>-<variant>-<first 8 hex digits of the recipe fingerprint>.jpg`,
/// for example `3f/3fa4…c2-full-9b1e04d2.jpg`. A new recipe gives a new name, so caches that
/// keep files forever never serve an outdated variant.
public enum ContentAddress {
    /// The variant's path relative to the output folder.
    public static func path(sha1: String, variant: String, fingerprint: String) -> String {
        "\(sha1.prefix(2))/\(sha1)-\(variant)-\(fingerprint.prefix(8)).jpg"
    }

    /// True for a path relative to the output folder that ladder could have written; only such
    /// files are ever deleted as stale.
    public static func isVariantPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard parts.count == 2, parts[0].utf8.count == 2, parts[0].utf8.allSatisfy(isHex),
            parts[1].hasSuffix(".jpg")
        else { return false }
        let name = parts[1].dropLast(4)
        guard name.utf8.count > 40 + 1 + 1 + 1 + 8, name.prefix(2) == parts[0] else { return false }
        let sha1 = name.prefix(40)
        let fingerprint = name.suffix(8)
        let middle = name.dropFirst(40).dropLast(8)
        return sha1.utf8.allSatisfy(isHex) && fingerprint.utf8.allSatisfy(isHex) && middle.first == "-"
            && middle.last == "-" && middle.count >= 3
    }

    private static func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte) }
}
