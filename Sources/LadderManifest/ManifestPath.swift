public import Foundation

/// The rules every path in a manifest follows: relative, `/`-separated, no empty, `.` or `..`
/// segment, no backslash, no control character, at most 255 bytes a segment.
///
/// Writers check paths before writing them and readers check them again, so a tampered
/// manifest cannot make a reader touch a file outside the manifest's folder.
public enum ManifestPath {
    /// What is wrong with `path`, or nil when it follows the rules.
    public static func problem(with path: String) -> String? {
        let bytes = path.utf8
        if bytes.isEmpty { return "empty path" }
        if bytes.first == UInt8(ascii: "/") { return "absolute path" }
        if bytes.contains(UInt8(ascii: "\\")) { return "backslash in path" }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "control character in path" }
        // One pass over the bytes, counting each segment's length and dots.
        var length = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if let problem = segmentProblem(length: length, dots: dots) { return problem }
                length = 0
                dots = 0
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return segmentProblem(length: length, dots: dots)
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
