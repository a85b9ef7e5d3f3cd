/// The rules every path in a manifest follows: relative, `/`-separated, no empty, `.` or `..`
/// segment, no backslash, no control character, at most 255 bytes a segment.
///
/// Writers check paths before writing them and readers check them again, so a tampered
/// manifest cannot make a reader touch a file outside the manifest's folder.
public enum ManifestPath {
    /// What is wrong with `path`, or nil when it follows the rules.
    public static func problem(with path: String) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") { return "absolute path" }
        if path.utf8.contains(UInt8(ascii: "\\")) { return "backslash in path" }
        if path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "control character in path" }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            switch segment {
            case "": return "empty segment in path"
            case ".": return "'.' segment in path"
            case "..": return "'..' segment in path"
            default:
                if segment.utf8.count > 255 { return "segment longer than 255 bytes" }
            }
        }
        return nil
    }

    /// True when `path` follows the rules.
    public static func isValid(_ path: String) -> Bool { problem(with: path) == nil }
}
