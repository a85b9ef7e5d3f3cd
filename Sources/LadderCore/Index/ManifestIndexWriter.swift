import Foundation
public import LadderManifest

/// Writes the index files (`index/00.json` ... `index/ff.json` for `manifest.json`; see
/// `ManifestIndex.folder(forManifestNamed:)` for other names) beside the manifest, so that
/// apps resolve one image with one small download (see `ManifestIndex`).
///
/// Call it just before the manifest is written: each file is replaced atomically, only when
/// its bytes change, and made durable before the manifest names the same variants. Variant
/// files are removed only after both are written, so at every moment the index and the
/// manifest each name files that exist.
public struct ManifestIndexWriter: Sendable {
    /// The folder that holds the manifest.
    public let manifestFolder: Directory
    /// The manifest's file name, which names the index folder.
    public let manifestName: String

    public init(manifestFolder: Directory, manifestName: String = ManifestIndex.defaultManifestName) {
        self.manifestFolder = manifestFolder
        self.manifestName = manifestName
    }

    /// The index folder's name, beside the manifest.
    public var folderName: String { ManifestIndex.folder(forManifestNamed: manifestName) }

    /// Writes the index of `manifest`; returns how many files changed.
    @discardableResult
    public func write(_ manifest: Manifest) throws(FileSystemError) -> Int {
        let folder = try manifestFolder.subdirectory(folderName, create: true)
        // What a killed run left behind.
        for name in try folder.entries(sorted: false) where name.hasPrefix(Directory.temporaryPrefix) {
            try folder.removeFile(name)
        }
        var changed = 0
        for (path, data) in ManifestIndex.files(for: manifest, manifestName: manifestName).sorted(by: { $0.key < $1.key }) {
            let name = FilePath.name(path)
            let bytes = [UInt8](data)
            if (try? folder.readFile(name)) == bytes { continue }
            try folder.writeAtomically(bytes, to: name)
            changed += 1
        }
        if changed > 0 {
            try folder.synchronize()
            try manifestFolder.synchronize()
        }
        return changed
    }

    /// Whether every index file exists beside the manifest (one listing, no file read): a
    /// build whose manifest did not change writes the index again only when this is false.
    public var isComplete: Bool {
        guard let folder = try? manifestFolder.subdirectory(folderName, create: false),
            let names = try? folder.entries(sorted: false)
        else { return false }
        return Set(paths.map(FilePath.name)).isSubset(of: names)
    }

    /// What is wrong with the index beside the manifest: every file must hold exactly what the
    /// manifest says, as `ladder verify` checks. Each problem is a file path (relative to the
    /// manifest's folder) and a message.
    public func problems(for manifest: Manifest) -> [(path: String, message: String)] {
        guard let folder = try? manifestFolder.subdirectory(folderName, create: false) else {
            return [(folderName, "no index folder beside the manifest; run ladder build")]
        }
        var problems: [(path: String, message: String)] = []
        for (path, data) in ManifestIndex.files(for: manifest, manifestName: manifestName).sorted(by: { $0.key < $1.key }) {
            guard let bytes = try? folder.readFile(FilePath.name(path)) else {
                problems.append((path, "the index file is missing; run ladder build"))
                continue
            }
            if bytes != [UInt8](data) {
                problems.append((path, "the index file does not match the manifest; run ladder build"))
            }
        }
        return problems
    }

    /// The index files' paths relative to the manifest's folder, so that `ladder verify` does
    /// not count them as orphans.
    public var paths: [String] { Self.paths(manifestName: manifestName) }

    /// The index files' paths relative to the folder of a manifest named `manifestName`.
    public static func paths(manifestName: String) -> [String] {
        let folder = ManifestIndex.folder(forManifestNamed: manifestName)
        let hex = "0123456789abcdef".map(String.init)
        return hex.flatMap { high in hex.map { folder + "/" + high + $0 + ".json" } }
    }
}
