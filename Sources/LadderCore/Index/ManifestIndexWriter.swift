package import Foundation
package import LadderManifest

/// Writes the index files (`index/layout.json` and `index/00.json` ... `index/ff.json` for
/// `manifest.json`, with longer prefixes for larger manifests; see `ManifestIndex` and
/// `ManifestIndex.folder(forManifestNamed:)` for other names) beside the manifest, so that apps
/// resolve one image with one small download.
///
/// Call it just before the manifest is written: each file is replaced atomically, only when
/// its bytes change (the changed files written and flushed together, then renamed in order: the
/// prefix files before the layout file that points to them), and all made durable before the
/// manifest names the same variants. Variant files are removed only
/// after both are written, so at every moment the index and the manifest each name files that
/// exist. Prefix files of another length (the manifest crossed a size at which the prefix length
/// changes) are removed once the new layout is written.
package struct ManifestIndexWriter: Sendable {
    /// The folder that holds the manifest.
    package let manifestFolder: Directory
    /// The manifest's file name, which names the index folder.
    package let manifestName: String

    package init(manifestFolder: Directory, manifestName: String = ManifestIndex.defaultManifestName) {
        self.manifestFolder = manifestFolder
        self.manifestName = manifestName
    }

    /// The index folder's name, beside the manifest.
    package var folderName: String { ManifestIndex.folder(forManifestNamed: manifestName) }

    /// Writes the index of `manifest`; returns how many files changed (removed ones included).
    /// With `previous`, the manifest the index on disk was written for, only the prefix files
    /// of the images that differ between the two are made again (when both have the same prefix
    /// length and every file is there): a build that changed one image encodes one prefix file.
    @discardableResult
    package func write(_ manifest: Manifest, previous: Manifest? = nil) throws(FileSystemError) -> Int {
        let only = previous.flatMap { changedPrefixes(from: $0, to: manifest) }
        return try write(
            ManifestIndex.files(for: manifest, manifestName: manifestName, only: only),
            imageCount: manifest.images.count)
    }

    /// Writes the prefix files `prefixes` of a manifest of `imageCount` images, given the images
    /// of those prefixes (`images`), when every index file is there for that count's prefix
    /// length; returns how many files changed, or nil (nothing written) when some are missing.
    package func write(
        images: [String: Manifest.ImageEntry], imageCount: Int, prefixes: Set<String>
    ) throws(FileSystemError) -> Int? {
        let length = ManifestIndex.prefixLength(forImageCount: imageCount)
        guard isComplete,
            (try? indexFolder?.readFile(ManifestIndex.layoutName)).map({
                $0 == [UInt8](ManifestIndex.Layout(prefixLength: length).jsonData())
            }) == true
        else { return nil }
        return try write(
            ManifestIndex.files(images: images, prefixLength: length, manifestName: manifestName, only: prefixes),
            imageCount: imageCount)
    }

    private func write(_ files: [String: Data], imageCount: Int) throws(FileSystemError) -> Int {
        let (folder, _) = try openIndexFolder()
        let layoutPath = ManifestIndex.layoutPath(manifestName: manifestName)
        // The layout last: until it is replaced, it names prefix files that are all there.
        let ordered = files.keys.filter { $0 != layoutPath }.sorted() + [layoutPath]
        // The files whose bytes change, written together and renamed in that order.
        var batch: [(name: String, bytes: [UInt8])] = []
        for path in ordered {
            let name = FilePath.name(path)
            guard let data = files[path] else { continue }
            let bytes = [UInt8](data)
            if (try? folder.readFile(name)) == bytes { continue }
            batch.append((name, bytes))
        }
        try folder.writeAtomically(batch)
        return try settle(folder, imageCount: imageCount, changed: batch.count)
    }

    /// The index folder, created when missing, without the temporary files a killed run left,
    /// and the names of the files left in it.
    func openIndexFolder() throws(FileSystemError) -> (folder: Directory, names: Set<String>) {
        let folder = try manifestFolder.subdirectory(folderName, create: true)
        var names: Set<String> = []
        for name in try folder.entries(sorted: false) {
            if name.hasPrefix(Directory.temporaryPrefix) { try folder.removeFile(name) } else { names.insert(name) }
        }
        return (folder, names)
    }

    /// Once the `changed` files of the index of `imageCount` images are in place in `folder`:
    /// removes the prefix files of another length, which the layout no longer names, and makes
    /// it all durable. Returns how many files changed, removed ones included.
    func settle(_ folder: Directory, imageCount: Int, changed: Int) throws(FileSystemError) -> Int {
        var changed = changed
        if changed > 0 {
            try folder.synchronize()
        }
        let names = Set(Self.paths(forImageCount: imageCount, manifestName: manifestName).map(FilePath.name))
        for name in try folder.entries(sorted: true) where !names.contains(name) && Self.isPrefixFileName(name) {
            try folder.removeFile(name)
            changed += 1
        }
        if changed > 0 {
            try folder.synchronize()
            try manifestFolder.synchronize()
        }
        return changed
    }

    /// The prefixes of the images added, removed or changed from `previous` to `manifest`; nil
    /// when the prefix length differs or some index file is missing (every file is made then).
    private func changedPrefixes(from previous: Manifest, to manifest: Manifest) -> Set<String>? {
        let length = ManifestIndex.prefixLength(forImageCount: manifest.images.count)
        guard ManifestIndex.prefixLength(forImageCount: previous.images.count) == length, isComplete else { return nil }
        var prefixes: Set<String> = []
        for (sha1, entry) in manifest.images where previous.images[sha1] != entry {
            prefixes.insert(String(sha1.prefix(length)))
        }
        for sha1 in previous.images.keys where manifest.images[sha1] == nil {
            prefixes.insert(String(sha1.prefix(length)))
        }
        return prefixes
    }

    /// Whether every index file the layout names exists beside the manifest (the layout and one
    /// listing read): a build whose manifest did not change writes the index again only when
    /// this is false.
    package var isComplete: Bool {
        guard let folder = try? manifestFolder.subdirectory(folderName, create: false),
            let layoutBytes = try? folder.readFile(ManifestIndex.layoutName),
            let layout = try? ManifestIndex.Layout(jsonData: Data(layoutBytes)),
            let names = try? folder.entries(sorted: false)
        else { return false }
        let expected = ManifestIndex.prefixes(length: layout.prefixLength).map { $0 + ".json" }
        return Set(names).isSuperset(of: expected)
    }

    /// What is wrong with the index beside the manifest: every file must hold exactly what the
    /// manifest says, as `ladder verify` checks. Each problem is a file path (relative to the manifest's folder) and a message.
    package func problems(for manifest: Manifest) -> [(path: String, message: String)] {
        guard let folder = indexFolder else { return [missingFolder] }
        let files = ManifestIndex.files(for: manifest, manifestName: manifestName)
        // A prefix file of another length is not exempt from verify's orphan check, which
        // reports it.
        return files.sorted(by: { $0.key < $1.key }).compactMap {
            problem(path: $0.key, expected: $0.value, in: folder)
        }
    }

    /// The index folder beside the manifest; nil when there is none (`missingFolder`).
    package var indexFolder: Directory? { try? manifestFolder.subdirectory(folderName, create: false) }

    /// The problem of an index without its folder.
    package var missingFolder: (path: String, message: String) {
        (folderName, "no index folder beside the manifest; run ladder build")
    }

    /// The problem of the index file at `path` (relative to the manifest's folder) in `folder`,
    /// when it does not hold `expected`.
    package func problem(path: String, expected: Data, in folder: Directory) -> (path: String, message: String)? {
        guard let bytes = try? folder.readFile(FilePath.name(path)) else {
            return (path, "the index file is missing; run ladder build")
        }
        return bytes == [UInt8](expected) ? nil : (path, "the index file does not match the manifest; run ladder build")
    }

    /// The index files' paths relative to the manifest's folder, for `manifest`, so that
    /// `ladder verify` does not count them as orphans.
    package static func paths(forImageCount imageCount: Int, manifestName: String) -> [String] {
        let folder = ManifestIndex.folder(forManifestNamed: manifestName)
        let length = ManifestIndex.prefixLength(forImageCount: imageCount)
        return [ManifestIndex.layoutPath(manifestName: manifestName)]
            + ManifestIndex.prefixes(length: length).map { folder + "/" + $0 + ".json" }
    }

    /// A name the writer gives prefix files: hex digits (at least two) and `.json`.
    static func isPrefixFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".json") else { return false }
        let stem = name.dropLast(5)
        return stem.count >= ManifestIndex.minimumPrefixLength
            && stem.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

extension ManifestIndexWriter {
    /// The index files of `manifest` by their paths relative to the output folder, given the
    /// manifest's.
    static func pathsInOutput(_ manifestInOutput: String, imageCount: Int) -> [String] {
        let base = FilePath.parent(manifestInOutput)
        return ManifestIndexWriter.paths(forImageCount: imageCount, manifestName: FilePath.name(manifestInOutput)).map {
            base.isEmpty || base == "." ? $0 : base + "/" + $0
        }
    }
}
