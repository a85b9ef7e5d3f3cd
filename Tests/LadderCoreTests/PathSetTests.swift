import LadderCore
import Testing

/// `PathSet` holds content-addressed paths compactly and any other path as its string: it must
/// answer as a set of strings does (the oracle), whichever way a path is held.
@Suite("Path set")
struct PathSetTests {
    static let sha1s = [
        "0123456789abcdef0123456789abcdef01234567", "fedcba9876543210fedcba9876543210fedcba98",
        "00000000000000000000000000000000000000ff", "ff00000000000000000000000000000000000000",
    ]
    static let tails = ["-small_thumb-1a2b3c4d.jpg", "-large_thumb-1a2b3c4d.jpg", "-full-99887766.webp", "x", ""]

    /// Content-addressed paths, and near misses held as strings: another folder, uppercase hex,
    /// a digit short, no tail, no folder, a path in a deeper folder.
    static func paths() -> [String] {
        var paths: [String] = []
        for sha1 in sha1s {
            for tail in tails {
                paths.append("\(sha1.prefix(2))/\(sha1)\(tail)")
                paths.append("zz/\(sha1)\(tail)")
                paths.append("\(sha1.prefix(2).uppercased())/\(sha1.uppercased())\(tail)")
                paths.append("\(sha1.prefix(2))/\(sha1.dropLast())\(tail)")
                paths.append("\(sha1)\(tail)")
                paths.append("sub/\(sha1.prefix(2))/\(sha1)\(tail)")
            }
        }
        return paths + ["manifest.json", "index/0a.json", ".ladder-lock", "é/ü"]
    }

    @Test("it answers as a set of strings for every path, held either way")
    func answersAsStrings() {
        let all = Self.paths()
        #expect(all.count == 124)
        // Every other path in; each path asked.
        var strings: Set<String> = []
        var paths = PathSet()
        for (index, path) in all.enumerated() where index % 2 == 0 {
            strings.insert(path)
            paths.insert(path)
        }
        paths.insert(all[0])  // again
        #expect(paths.count == strings.count)
        for path in all {
            #expect(paths.contains(path) == strings.contains(path), "\(path)")
        }
        #expect(!PathSet().contains(all[0]))
    }

    @Test("a union renumbers the other set's tails")
    func unionRenumbersTails() {
        let all = Self.paths()
        // Tails met in different orders, so that their numbers differ between the two sets.
        let first = PathSet(all.filter { $0.hasSuffix(".webp") || $0.hasSuffix("json") })
        let second = PathSet(all.reversed().filter { !$0.hasSuffix(".webp") })
        var union = first
        union.formUnion(second)
        let oracle = Set(all.filter { $0.hasSuffix(".webp") || $0.hasSuffix("json") }).union(
            all.filter { !$0.hasSuffix(".webp") })
        #expect(union.count == oracle.count)
        for path in all { #expect(union.contains(path) == oracle.contains(path), "\(path)") }
    }
}
