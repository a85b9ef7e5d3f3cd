import LadderCore
import Testing

/// Path arithmetic, held to Python's `posixpath` (the oracle: `posixpath.normpath` for
/// `normalize`, `posixpath.relpath` for `relative`, its values computed once and written here).
/// Paths already normalized take a short way through `normalize`; both ways must agree with it.
@Suite("File paths")
struct FilePathTests {
    /// A path and `posixpath.normpath` of it. `normpath` keeps exactly two leading slashes, as
    /// POSIX allows; ladder folds them as it folds three, so that case is not here.
    static let normalized: [(path: String, expected: String)] = [
        ("a", "a"), ("a/b", "a/b"), ("/", "/"), ("/a/b", "/a/b"), (".", "."), ("..", ".."),
        ("../a", "../a"), ("a/..", "."), ("a/../..", ".."), ("/..", "/"), ("/../a", "/a"),
        ("a//b", "a/b"), ("a/./b", "a/b"), ("./a", "a"), ("a/", "a"), ("/a/", "/a"), ("", "."),
        ("...", "..."), ("..a/.b/c.", "..a/.b/c."), ("a/b/../../c", "c"), ("é/ñ/日本", "é/ñ/日本"),
        ("x/./../y/.", "y"), ("///a", "/a"), ("a/b/..", "a"),
    ]

    @Test("normalize agrees with posixpath.normpath, on paths normalized already and on the others")
    func normalizeAgreesWithPosixpath() {
        for (path, expected) in Self.normalized {
            #expect(FilePath.normalize(path) == expected, "normalize(\(path))")
            #expect(FilePath.normalize(expected) == expected, "normalize of a normalized path (\(expected))")
        }
    }

    /// A path, a folder, and the path relative to the folder by `posixpath.relpath` (nil where it
    /// climbs out with "..", "" where it is ".").
    static let relatives: [(path: String, folder: String, expected: String?)] = [
        ("build/00/ab.jpg", "build", "00/ab.jpg"), ("build", "build", ""), ("build/x", "build/", "x"),
        ("buildx/a", "build", nil), ("/a/b", "/", "a/b"), ("/a/b", "/a", "b"), ("a/../b/c", "b", "c"),
        ("a/b", "a/b/c", nil), ("./a/b", "a", "b"), ("/x", "/y", nil),
    ]

    @Test("relative agrees with posixpath.relpath inside the folder, and is nil outside it")
    func relativeAgreesWithPosixpath() {
        for (path, folder, expected) in Self.relatives {
            #expect(FilePath.relative(path, to: folder) == expected, "relative(\(path), to: \(folder))")
        }
    }

    @Test("join puts a relative path under its folder, normalized, and an absolute one in its place")
    func joinNormalizes() {
        #expect(FilePath.join("build", "00/ab.jpg") == "build/00/ab.jpg")
        #expect(FilePath.join("build/", "./00//ab.jpg") == "build/00/ab.jpg")
        #expect(FilePath.join("build/x", "../y") == "build/y")
        #expect(FilePath.join("build", "/etc/z") == "/etc/z")
        #expect(FilePath.join("", "a/./b") == "a/b")
        #expect(FilePath.join("/", "a") == "/a")
    }
}
