import Foundation
import LadderImaging

/// The pipeline.json `ladder init` writes: the folders of a project that hold images, the
/// default variants, and comments ("$comment" keys) that say what each part does.
package struct StarterPipeline: Sendable, Equatable {
    /// A folder that holds images, relative to the project's folder ("." for the folder itself).
    package struct Source: Sendable, Equatable {
        package var path: String
        /// Images under it, at any depth.
        package var images: Int
    }

    package var sources: [Source]

    /// Folders never worth walking for sources: version control, dependencies, build products.
    static let ignoredFolders: Set<String> = [
        "node_modules", "Pods", "Carthage", "DerivedData", "vendor", "target", "dist", "build", "out",
        "__pycache__",
    ]

    /// At most this many folder entries are looked at, so that init answers at once even when
    /// run from a home folder.
    static let entryBudget = 200_000

    /// Finds the folders under `folder` that hold images (by extension). A folder below one
    /// already found is not listed again: its images are under the first.
    package static func discover(in folder: String) throws(FileSystemError) -> StarterPipeline {
        var counts: [String: Int] = [:]
        var budget = entryBudget
        try count(try Directory.open(folder), relative: "", counts: &counts, budget: &budget)
        // Top-most folders holding images directly, each with the images of everything below it.
        let holders = counts.keys.sorted()
        var sources: [Source] = []
        for path in holders where !holders.contains(where: { Self.isAncestor($0, of: path) }) {
            let total = counts.filter { $0.key == path || Self.isAncestor(path, of: $0.key) }.values.reduce(0, +)
            sources.append(Source(path: path.isEmpty ? "." : path, images: total))
        }
        return StarterPipeline(sources: sources)
    }

    private static func count(
        _ directory: Directory, relative: String, counts: inout [String: Int], budget: inout Int
    ) throws(FileSystemError) {
        for name in try directory.entries() where !name.hasPrefix(".") {
            budget -= 1
            guard budget > 0 else { return }
            guard let status = try directory.status(of: name) else { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            switch status.kind {
            case .directory where !ignoredFolders.contains(name):
                if let child = try? directory.subdirectory(name, create: false) {
                    try count(child, relative: path, counts: &counts, budget: &budget)
                }
            case .regular:
                if let dot = name.lastIndex(of: "."),
                    ImageFormat.named(byExtension: String(name[name.index(after: dot)...])) != nil
                {
                    counts[relative, default: 0] += 1
                }
            default:
                continue
            }
        }
    }

    private static func isAncestor(_ folder: String, of path: String) -> Bool {
        folder != path && (folder.isEmpty || path.hasPrefix(folder + "/"))
    }

    // MARK: - Text

    /// The pipeline.json text: valid JSON that ladder reads as it is.
    package var text: String {
        let sourceList = sources.map { Self.quoted($0.path) }.joined(separator: ", ")
        return """
            {
              "$comment": "ladder's pipeline. Every key but sources has a default; keys named $comment are notes that ladder ignores. Reference: the pipeline.json section of ladder's README.",
              "version": 1,
              "sources": [\(sourceList)],
              "output": "build/variants",
              "manifest": "build/variants/manifest.json",
              "variants": {
                "$comment": "Each variant fits inside its box, keeps its aspect ratio and is never upscaled. Apps load small_thumb, then large_thumb, then full, which sharpens scan by scan.",
                "small_thumb": { "maxWidth": 160, "maxHeight": 160, "quality": 80 },
                "large_thumb": { "maxWidth": 640, "maxHeight": 640, "quality": 82 },
                "full": { "maxWidth": 2560, "maxHeight": 2560, "quality": 85, "progressive": { "scans": 5 } }
              },
              "background": "#ffffff",
              "metadata": {
                "$comment": "Variants carry no metadata (GPS, camera serial numbers...) unless named here: artist, copyright, imageDescription, dateTimeOriginal, make, model.",
                "keep": []
              }
            }

            """
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
