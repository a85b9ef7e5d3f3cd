import Foundation

/// The shared corpus of real image files, which lives next to the project (`../shared/corpus`)
/// and is never committed. Tests that use it are skipped, with a message, when it is absent.
enum Corpus {
    /// The corpus folder, or nil when it is not there.
    static let root: String? = {
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

    /// The message given when a corpus test is skipped.
    static let absenceNote = "../shared/corpus is absent; corpus tests are skipped"

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
