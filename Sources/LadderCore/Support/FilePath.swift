/// Lexical path arithmetic on `/`-separated strings (no file-system access).
package enum FilePath {
    /// `base` and `path` joined; `path` wins when it is absolute. The result is normalized.
    package static func join(_ base: String, _ path: String) -> String {
        if path.hasPrefix("/") || base.isEmpty { return normalize(path) }
        // The common case, a normalized folder and one plain name, needs no normalizing.
        if isPlainName(path) && isNormalized(base) { return base == "/" ? "/" + path : base + "/" + path }
        return normalize(base + "/" + path)
    }

    /// True for one path segment that is not "." or "..".
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/"))
    }

    /// True when `normalize(path) == path`, checked without building anything.
    static func isNormalized(_ path: String) -> Bool {
        var path = path
        return path.withUTF8(isNormalized)
    }

    private static func isNormalized(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        if bytes.count == 1 && (bytes[0] == UInt8(ascii: ".") || bytes[0] == UInt8(ascii: "/")) { return true }
        if bytes.last == UInt8(ascii: "/") { return false }
        var segmentStart = bytes[0] == UInt8(ascii: "/") ? 1 : 0
        for index in segmentStart...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            let length = index - segmentStart
            if length == 0 { return false }
            if bytes[segmentStart] == UInt8(ascii: "."),
                length == 1 || (length == 2 && bytes[segmentStart + 1] == UInt8(ascii: "."))
            {
                return false
            }
            segmentStart = index + 1
        }
        return true
    }

    /// Removes empty and "." segments and folds ".." into its parent where there is one.
    package static func normalize(_ path: String) -> String {
        // Most paths are normalized already: a scan of their bytes, not a split and a join.
        if isNormalized(path) { return path }
        let isAbsolute = path.hasPrefix("/")
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..":
                if let last = segments.last, last != ".." {
                    segments.removeLast()
                } else if !isAbsolute {
                    segments.append(segment)
                }
            default: segments.append(segment)
            }
        }
        let joined = segments.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// The folder that holds `path`.
    package static func parent(_ path: String) -> String {
        let normalized = normalize(path)
        let bytes = normalized.utf8
        guard let slash = lastSlash(bytes) else { return "." }
        if slash == bytes.startIndex { return "/" }
        return String(decoding: bytes[..<slash], as: UTF8.self)
    }

    /// The last segment of `path`.
    package static func name(_ path: String) -> String {
        let normalized = normalize(path)
        let bytes = normalized.utf8
        guard let slash = lastSlash(bytes) else { return normalized }
        return String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
    }

    /// The last "/" byte of a path, as the system splits it: by bytes, not by characters (a
    /// name may begin with a combining mark, which a character search would join to the "/").
    private static func lastSlash(_ bytes: String.UTF8View) -> String.Index? {
        bytes.lastIndex(of: UInt8(ascii: "/"))
    }

    /// `path` relative to `folder` when it lies inside it ("" when they are the same), else nil.
    /// Both must be absolute, or both relative to the same place.
    package static func relative(_ path: String, to folder: String) -> String? {
        let path = normalize(path)
        let folder = normalize(folder)
        if path == folder { return "" }
        if folder == "/" { return path.hasPrefix("/") ? String(path.dropFirst()) : nil }
        guard path.hasPrefix(folder + "/") else { return nil }
        return String(path.dropFirst(folder.count + 1))
    }

    /// The path from `folder` to `path`, both absolute, climbing with ".." where needed: what a
    /// page in `folder` links to `path` with.
    package static func link(to path: String, from folder: String) -> String {
        let target = normalize(path).split(separator: "/")
        let base = normalize(folder).split(separator: "/")
        let common = zip(target, base).prefix { $0 == $1 }.count
        let climb = Array(repeating: "..", count: base.count - common)
        let rest = target.dropFirst(common).map(String.init)
        let joined = (climb + rest).joined(separator: "/")
        return joined.isEmpty ? "." : joined
    }

}
