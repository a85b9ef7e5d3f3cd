import Foundation
import Testing

/// The shared corpus of real image files, which lives next to the project (`../shared/corpus`)
/// and is never committed. Tests that use it are skipped, with a message, when it is absent,
/// except in CI (`CI=true`), where they run and fail for want of it.
enum Corpus {
    /// The corpus folder, or nil when it is not there: `LADDER_CORPUS` when set (for a checkout
    /// that does not sit beside it), else `../shared/corpus` beside the repository.
    static let root: String? = {
        if let given = ProcessInfo.processInfo.environment["LADDER_CORPUS"], !given.isEmpty {
            return FileManager.default.fileExists(atPath: given) ? given : nil
        }
        // This file is compiled through links from each test target's folder: resolve them, so
        // that the repository is found from Tests/Support/.
        let packageRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
            .standardizedFileURL
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate.path : nil
    }()

    /// True when the corpus is present.
    static var isAvailable: Bool { root != nil }

    /// Whether corpus tests run: when the corpus is there, and always in CI, where they then
    /// fail without it (`required()`).
    static var runs: Bool { isAvailable || ExternalTools.inCI }

    /// The message given when a corpus test is skipped.
    static let absenceNote = "../shared/corpus is absent; corpus tests are skipped"

    /// Thrown by a corpus test that runs (in CI) without the corpus.
    struct Absent: Error, CustomStringConvertible {
        var description: String { "../shared/corpus is absent, and CI needs it (LADDER_CORPUS names another place)" }
    }

    /// The corpus folder, or `Absent`.
    static func required() throws -> String {
        guard let root else { throw Absent() }
        return root
    }

    /// The absolute path of a corpus subfolder or file.
    static func path(_ relative: String) -> String? {
        root.map { ($0 as NSString).appendingPathComponent(relative) }
    }

    /// The files of a corpus subfolder, sorted.
    static func files(in folder: String) -> [String] {
        guard let directory = path(folder),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return [] }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
    }
}
