public import Foundation

/// The rules every path in a manifest follows: relative, `/`-separated, no empty, `.` or `..`
/// segment, no backslash, no control character, at most 255 bytes a segment.
///
/// Writers check paths before writing them and readers check them again, so a tampered
/// manifest cannot make a reader touch a file outside the manifest's folder.
public enum ManifestPath {
    /// What is wrong with `path`, or nil when it follows the rules.
    public static func problem(with path: String) -> String? {
        path.utf8.withContiguousStorageIfAvailable(problem(in:))
            ?? Array(path.utf8).withUnsafeBufferPointer(problem(in:))
    }

    /// The problem with a path's bytes, found in one pass; when there are several, the first
    /// of: empty, absolute, a backslash, a control character, a segment's.
    private static func problem(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let first = bytes.first else { return "empty path" }
        if first == UInt8(ascii: "/") { return "absolute path" }
        var backslash = false
        var control = false
        var segment: String?
        // Each segment's length and dots.
        var length = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if segment == nil { segment = segmentProblem(length: length, dots: dots) }
                length = 0
                dots = 0
                continue
            }
            length += 1
            if byte == UInt8(ascii: ".") {
                dots += 1
            } else if byte == UInt8(ascii: "\\") {
                backslash = true
            } else if byte < 0x20 || byte == 0x7F {
                control = true
            }
        }
        if backslash { return "backslash in path" }
        if control { return "control character in path" }
        return segment ?? segmentProblem(length: length, dots: dots)
    }

    private static func segmentProblem(length: Int, dots: Int) -> String? {
        if length == 0 { return "empty segment in path" }
        if length == 1 && dots == 1 { return "'.' segment in path" }
        if length == 2 && dots == 2 { return "'..' segment in path" }
        if length > 255 { return "segment longer than 255 bytes" }
        return nil
    }

    /// True when `path` follows the rules.
    public static func isValid(_ path: String) -> Bool { problem(with: path) == nil }

    /// `path` (relative, `/`-separated, checked when the manifest was read) under `baseURL`, each
    /// segment percent-encoded.
    public static func url(for path: String, under baseURL: URL) -> URL {
        path.split(separator: "/").reduce(baseURL) { url, segment in
            url.appendingPathComponent(String(segment), isDirectory: false)
        }
    }
}
