import Foundation
import LadderManifest

/// Checks that the index files beside the manifest hold exactly what the manifest says
/// (`ManifestIndexWriter`), one prefix file at a time as the images stream past: `add` takes
/// them in the manifest's order (sorted by SHA1, as ladder writes it), and a prefix file is
/// checked once the images pass its prefix. A shard's partial manifest has no index: `ladder
/// merge` writes it.
///
/// A manifest whose images are out of order (edited by hand) is held to its index whole at the
/// end, as the manifest read at once (`wholeManifest`): ladder never writes one.
final class ManifestIndexCheck {
    let configuration: PipelineConfiguration
    let manifestLabel: String
    private let writer: ManifestIndexWriter?
    private let folder: Directory?
    private let prefixLength: Int
    private let folderName: String
    private var problems: [(path: String, message: String)] = []
    /// The prefix whose images are being gathered, and them.
    private var prefix = ""
    private var group: [String: ManifestIndex.Entry] = [:]
    private var checked: Set<String> = []
    private(set) var outOfOrder = false

    init(configuration: PipelineConfiguration, manifestLabel: String, header: Manifest, imageCount: Int) {
        self.configuration = configuration
        self.manifestLabel = manifestLabel
        let manifestFolder =
            header.shard == nil ? try? Directory.open(FilePath.parent(configuration.manifestPath)) : nil
        writer = manifestFolder.map {
            ManifestIndexWriter(manifestFolder: $0, manifestName: FilePath.name(configuration.manifestPath))
        }
        folder = writer?.indexFolder
        if let writer, folder == nil { problems.append(writer.missingFolder) }
        prefixLength = ManifestIndex.prefixLength(forImageCount: imageCount)
        folderName = ManifestIndex.folder(forManifestNamed: FilePath.name(configuration.manifestPath))
    }

    /// The next image in the manifest's order.
    func add(_ key: String, _ entry: Manifest.ImageEntry) {
        guard folder != nil, !outOfOrder else { return }
        let keyPrefix = String(key.prefix(prefixLength))
        if keyPrefix != prefix {
            if !group.isEmpty { checkGroup() }
            if keyPrefix < prefix || checked.contains(keyPrefix) {
                outOfOrder = true
                return
            }
            prefix = keyPrefix
        }
        group[key] = ManifestIndex.Entry(entry)
    }

    /// The problems found, once every image was added; `wholeManifest` reads the manifest at
    /// once when its images were out of order.
    func finish(wholeManifest: () -> Manifest?) -> [VerificationProblem] {
        guard let writer, let folder else { return label(problems) }
        if outOfOrder {
            return label(wholeManifest().map { writer.problems(for: $0) } ?? [])
        }
        if !group.isEmpty { checkGroup() }
        for each in ManifestIndex.prefixes(length: prefixLength) where !checked.contains(each) {
            check(each, ManifestIndex(), in: writer, folder)
        }
        let layout = ManifestIndex.layoutPath(manifestName: FilePath.name(configuration.manifestPath))
        if let problem = writer.problem(
            path: layout, expected: ManifestIndex.Layout(prefixLength: prefixLength).jsonData(), in: folder)
        {
            problems.append(problem)
        }
        return label(problems.sorted { $0.path < $1.path })
    }

    private func checkGroup() {
        guard let writer, let folder else { return }
        check(prefix, ManifestIndex(images: group), in: writer, folder)
        group = [:]
    }

    private func check(_ prefix: String, _ index: ManifestIndex, in writer: ManifestIndexWriter, _ folder: Directory) {
        checked.insert(prefix)
        if let problem = writer.problem(
            path: folderName + "/" + prefix + ".json", expected: index.jsonData(), in: folder)
        {
            problems.append(problem)
        }
    }

    private func label(_ found: [(path: String, message: String)]) -> [VerificationProblem] {
        let base = FilePath.parent(manifestLabel)
        return found.map {
            VerificationProblem(path: base == "." ? $0.path : base + "/" + $0.path, kind: .index, message: $0.message)
        }
    }
}
