import Foundation
import LadderManifest

extension BuildRecord {
    /// What differs between the recorded build and this walk, when only sources did: the
    /// sources the record no longer vouches for, and the recorded paths no unchanged source
    /// took. The record's variant lines are kept as they are, to be written again.
    struct Changes {
        /// Positions in the walk of the sources whose identity is not the recorded one (or that
        /// changed too close to the recorded walk to be trusted), and of new ones.
        var changed: [Int]
        /// The recorded paths that no source with the recorded identity has now: changed or gone.
        var replacedPaths: [String]
        /// The record's `v` lines, each with its line feed, in the manifest's order: the end of
        /// the record, read in place.
        var variantText: ArraySlice<UInt8>
        /// The manifest snapshot's identity as the record has it (`identity`), nil for none.
        var snapshot: String?
    }

    /// The sources that changed since the build recorded in `bytes`, when everything else is as
    /// recorded (`matching`'s conditions but for the sources) and that build was a whole one in
    /// which every source ended up to date: no failure, no warning, no other shard. Nil
    /// otherwise, or when more than `limit` sources changed. `isPresent` is nil when
    /// `variantsArePresent` already found every variant file there.
    static func changes(
        _ bytes: [UInt8], files: [SourceFile], key: String, manifest: FileStatus, limit: Int,
        isPresent: ((_ path: String, _ bytes: Int) -> Bool)?
    ) -> Changes? {
        guard let opened = opening(bytes, key: key, manifest: manifest), opened.inOtherShards == 0 else { return nil }
        var lines = opened.lines
        let scannedAt = opened.scannedAt
        let trustedBefore = scannedAt - StatCache.racyWindow
        // The source lines, in the recorded walk's order: path and the line up to its outcome.
        var recorded: [(path: ArraySlice<UInt8>, line: ArraySlice<UInt8>)] = []
        while case let before = lines, let line = lines.next() {
            guard line.first == UInt8(ascii: "s") else {
                lines = before
                break
            }
            // `s <device> <inode> <size> <modified> <changed> <outcome> <path>`: no path holds a
            // tab (`write` and `serialized` refuse one).
            guard let tab = line.lastIndex(of: 9), tab - 2 > line.startIndex, line[tab - 2] == 9,
                line[tab - 1] == Outcome.upToDate.rawValue
            else { return nil }
            recorded.append((line[(tab + 1)...], line))
        }
        var changes = Changes(changed: [], replacedPaths: [], variantText: lines.rest, snapshot: opened.snapshot)
        var taken = Array(repeating: false, count: recorded.count)
        var expected: [UInt8] = []
        // Most paths are where they were: compare in step, and look a path up only after the
        // two walks part.
        var byPath: [ArraySlice<UInt8>: Int]?
        for (index, file) in files.enumerated() {
            let path = Array(file.path.utf8)
            var at: Int?
            if byPath == nil, index < recorded.count, recorded[index].path.elementsEqual(path) {
                at = index
            } else {
                if byPath == nil {
                    byPath = Dictionary(
                        recorded.indices.map { (recorded[$0].path, $0) }, uniquingKeysWith: { first, _ in first })
                }
                at = byPath![path[...]]
            }
            expected.removeAll(keepingCapacity: true)
            appendSource(file, outcome: .upToDate, to: &expected)
            if let at, !taken[at], file.status.modified < trustedBefore, file.status.changed < trustedBefore,
                recorded[at].line.elementsEqual(expected.dropLast())
            {
                taken[at] = true
            } else {
                changes.changed.append(index)
                guard changes.changed.count <= limit else { return nil }
            }
        }
        for (index, source) in recorded.enumerated() where !taken[index] {
            changes.replacedPaths.append(String(decoding: source.path, as: UTF8.self))
            guard changes.replacedPaths.count <= limit else { return nil }
        }
        for line in lines {
            // A failure, a warning, a damaged line or a missing file; when the files are known
            // to be there (`variantsArePresent` read each line), a glance at each line.
            guard line.count > 2, line.first == UInt8(ascii: "v"), line[line.startIndex + 1] == 9 else { return nil }
            guard let isPresent else { continue }
            let fields = line.split(separator: 9, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let size = Int(String(decoding: fields[1], as: UTF8.self)),
                isPresent(String(decoding: fields[2], as: UTF8.self), size)
            else { return nil }
        }
        return changes
    }

    /// The `v` lines of `entries` (by SHA1, sorted), as `serialized(files:)` writes them.
    static func variantLines(of entries: [(sha1: String, entry: Manifest.ImageEntry)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (_, entry) in entries {
            for name in entry.variants.keys.sorted() {
                let variant = entry.variants[name]!
                bytes += Array("v\t\(variant.bytes)\t\(variant.path)\n".utf8)
                for format in (variant.formats ?? [:]).keys.sorted() {
                    bytes += Array("v\t\(variant.formats![format]!.bytes)\t\(variant.formats![format]!.path)\n".utf8)
                }
            }
        }
        return bytes
    }

    /// Writes the record into `file` a piece at a time, as `serialized(files:)` lays it out,
    /// its `v` lines written by `variantLines` between the sources' lines and the failures'.
    /// False, with the file left unfinished, when a text holds a tab or a line feed.
    func write(
        files: [SourceFile], into file: Directory.StreamedFile,
        variantLines: () throws(FileSystemError) -> Void
    ) throws(FileSystemError) -> Bool {
        let texts =
            files.lazy.map(\.path) + failures.flatMap { [$0.key, $0.value] }
            + warnings.flatMap { [$0.path, $0.message] }
        guard !texts.contains(where: { $0.utf8.contains(9) || $0.utf8.contains(10) }) else { return false }
        let opening = BuildRecord(
            scannedAt: scannedAt, key: key, manifest: manifest, snapshot: snapshot, skipped: skipped,
            inOtherShards: inOtherShards, outcomes: [], variants: [], failures: [:], warnings: []
        ).serialized(files: [])
        guard let opening else { return false }
        try file.append(opening)
        var line: [UInt8] = []
        for (source, outcome) in zip(files, outcomes) {
            line.removeAll(keepingCapacity: true)
            Self.appendSource(source, outcome: outcome, to: &line)
            try file.append(line)
        }
        try variantLines()
        for path in failures.keys.sorted() { try file.append(Array("f\t\(path)\t\(failures[path]!)\n".utf8)) }
        for warning in warnings { try file.append(Array("w\t\(warning.path)\t\(warning.message)\n".utf8)) }
        return true
    }
}
