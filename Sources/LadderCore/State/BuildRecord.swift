import Foundation

/// What the last build of a scope found and wrote, in the compact form a no-op build needs to
/// see that nothing changed without reading the manifest (docs/BUILDS.md, "Incremental builds").
///
/// A build whose sources (path and identity, in the walk's order), inputs besides the sources
/// (the `key`), manifest file, variant files and index are all as this record says would write
/// the manifest it already wrote: it ends there, with the outcomes recorded here. Anything
/// else, or a record that cannot be read, leads to the full build, which writes a new record.
/// Losing it costs only time.
///
/// The format is text, one record per line, fields separated by tabs, in this order:
///
///     ladder-build-record 2
///     scanned <ns>                       when the walk started (sources changed within
///                                        StatCache.racyWindow of it are not trusted)
///     key <sha1>                         of everything besides the sources that decides the manifest
///     manifest <device> <inode> <size> <mtime> <ctime>
///     snapshot <device> <inode> <size> <mtime> <ctime>   the manifest's snapshot, as that build
///                                        left it (`-`: none); a build of a few changes copies it
///                                        when it is still that file
///     counts <skipped> <inOtherShards>
///     s <device> <inode> <size> <mtime> <ctime> <u|o|f> <path>   one per source, in walk order
///     v <bytes> <path>                   one per variant file (and format sibling) the manifest
///                                        names, as it names it
///     f <path> <reason>                  one per failed source
///     w <path> <message>                 one per warning about the manifest's entries
///
/// Times are in nanoseconds since 1970. A build whose text holds a tab or a line feed, or
/// that could not read a source, writes no record: the next build is a full one.
struct BuildRecord {
    /// How each source ended in the recorded build.
    enum Outcome: UInt8 {
        case upToDate = 117  // "u"
        case inOtherShard = 111  // "o"
        case failed = 102  // "f"
    }

    static let header = "ladder-build-record 2"

    var scannedAt: Int64
    var key: String
    var manifest: FileStatus
    /// The manifest snapshot's status when the record was written: nil when there was none.
    var snapshot: FileStatus?
    var skipped: Int
    var inOtherShards: Int
    var outcomes: [Outcome]
    var variants: [(path: String, bytes: Int)]
    var failures: [String: String]
    var warnings: [SourceWarning]

    // MARK: - Writing

    /// The record's bytes for `files` (the walk's, whose outcomes are `outcomes`); nil when some
    /// text holds a tab or a line feed.
    func serialized(files: [SourceFile]) -> [UInt8]? {
        var bytes = Array("\(Self.header)\nscanned\t\(scannedAt)\nkey\t\(key)\n".utf8)
        bytes += Array("manifest\t\(Self.identity(manifest))\nsnapshot\t\(snapshot.map(Self.identity) ?? "-")\n".utf8)
        bytes += Array("counts\t\(skipped)\t\(inOtherShards)\n".utf8)
        let texts =
            files.map(\.path) + variants.map(\.path) + failures.flatMap { [$0.key, $0.value] }
            + warnings.flatMap { [$0.path, $0.message] }
        guard !texts.contains(where: { $0.utf8.contains(9) || $0.utf8.contains(10) }) else { return nil }
        for (file, outcome) in zip(files, outcomes) {
            Self.appendSource(file, outcome: outcome, to: &bytes)
        }
        for variant in variants { bytes += Array("v\t\(variant.bytes)\t\(variant.path)\n".utf8) }
        for path in failures.keys.sorted() { bytes += Array("f\t\(path)\t\(failures[path]!)\n".utf8) }
        for warning in warnings { bytes += Array("w\t\(warning.path)\t\(warning.message)\n".utf8) }
        return bytes
    }

    /// Device, inode, size, modification and change time, tab-separated.
    static func identity(_ status: FileStatus) -> String {
        "\(status.device)\t\(status.inode)\t\(status.size)\t\(status.modified)\t\(status.changed)"
    }

    /// Appends a source's line, its identity as `identity` writes it (without making a string:
    /// a build writes, and a no-op compares, one such line a source).
    static func appendSource(_ file: SourceFile, outcome: Outcome, to bytes: inout [UInt8]) {
        let status = file.status
        bytes.append(UInt8(ascii: "s"))
        for number in [status.device, status.inode] {
            bytes.append(9)
            appendDecimal(number, to: &bytes)
        }
        for number in [Int64(status.size), status.modified, status.changed] {
            bytes.append(9)
            if number < 0 { bytes.append(UInt8(ascii: "-")) }
            appendDecimal(number.magnitude, to: &bytes)
        }
        bytes.append(9)
        bytes.append(outcome.rawValue)
        bytes.append(9)
        bytes.append(contentsOf: file.path.utf8)
        bytes.append(10)
    }

    /// Appends `number` in decimal, as its `description` has it.
    private static func appendDecimal(_ number: UInt64, to bytes: inout [UInt8]) {
        var rest = number
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    // MARK: - Reading

    /// The lines of a record's bytes, each without its line feed, read in place one at a time
    /// (a record of a million sources has four million lines).
    struct Lines: Sequence, IteratorProtocol {
        /// The bytes not read yet, from the start of the next line.
        var rest: ArraySlice<UInt8>

        mutating func next() -> ArraySlice<UInt8>? {
            guard !rest.isEmpty else { return nil }
            let end = rest.firstIndex(of: 10) ?? rest.endIndex
            defer { rest = rest[(end < rest.endIndex ? end + 1 : end)...] }
            return rest[..<end]
        }
    }

    /// The record's lines after its opening ones, with what those say (`snapshot`: the
    /// snapshot's identity as `identity` writes it, nil for none), when the record is whole and
    /// was made with `key` for the manifest file `manifest`; nil otherwise.
    static func opening(
        _ bytes: [UInt8], key: String, manifest: FileStatus
    ) -> (lines: Lines, scannedAt: Int64, snapshot: String?, skipped: Int, inOtherShards: Int)? {
        guard bytes.last == 10 else { return nil }  // cut short
        var lines = Lines(rest: bytes[...])
        func take(_ name: String) -> [String]? {
            guard let line = lines.next() else { return nil }
            let fields = line.split(separator: 9, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            return fields.first == name ? Array(fields.dropFirst()) : nil
        }
        guard lines.next().map({ String(decoding: $0, as: UTF8.self) }) == Self.header,
            let scanned = take("scanned"), scanned.count == 1, let scannedAt = Int64(scanned[0]),
            take("key") == [key], manifest.kind == .regular,
            take("manifest")
                == identity(manifest).split(separator: "\t", omittingEmptySubsequences: false).map(String.init),
            let snapshot = take("snapshot"), snapshot == ["-"] || snapshot.count == 5,
            let counts = take("counts"), counts.count == 2, let skipped = Int(counts[0]),
            let inOtherShards = Int(counts[1])
        else { return nil }
        return (lines, scannedAt, snapshot == ["-"] ? nil : snapshot.joined(separator: "\t"), skipped, inOtherShards)
    }

    /// True when every `v` line of the record in `bytes` names a file that `isPresent` (path as
    /// the manifest names it, and size). The lines are read in place, one at a time: a record
    /// of a million sources has four million lines.
    static func variantsArePresent(_ bytes: [UInt8], isPresent: (_ path: String, _ bytes: Int) -> Bool) -> Bool {
        for line in Lines(rest: bytes[...]) {
            guard line.first == UInt8(ascii: "v") else { continue }
            let fields = line.split(separator: 9, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0].count == 1, let size = Int(String(decoding: fields[1], as: UTF8.self)),
                isPresent(String(decoding: fields[2], as: UTF8.self), size)
            else { return false }
        }
        return true
    }

    /// The recorded build, when `bytes` hold a record made for exactly `files` with `key` and
    /// every variant file it lists `isPresent` (path as the manifest names it, and size); nil
    /// when anything differs, a source changed too close to the recorded walk to be trusted, or
    /// the record is damaged. Lines are compared as bytes, one at a time, so that nothing but
    /// the outcomes is kept of the sources and nothing of the variants (`variants` stays empty).
    /// `isPresent` is nil when `variantsArePresent` already found every variant file there.
    static func matching(
        _ bytes: [UInt8], files: [SourceFile], key: String, manifest: FileStatus,
        isPresent: ((_ path: String, _ bytes: Int) -> Bool)?
    ) -> BuildRecord? {
        guard let opened = opening(bytes, key: key, manifest: manifest) else { return nil }
        var lines = opened.lines
        let (scannedAt, skipped, inOtherShards) = (opened.scannedAt, opened.skipped, opened.inOtherShards)
        let trustedBefore = scannedAt - StatCache.racyWindow
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(files.count)
        var expected: [UInt8] = []
        for file in files {
            guard file.status.modified < trustedBefore, file.status.changed < trustedBefore,
                let line = lines.next()
            else { return nil }
            expected.removeAll(keepingCapacity: true)
            appendSource(file, outcome: .upToDate, to: &expected)
            // Equal but for the outcome, the byte after the identity.
            let outcomeAt = expected.count - file.path.utf8.count - 3
            guard line.count == expected.count - 1,
                line.prefix(outcomeAt).elementsEqual(expected.prefix(outcomeAt)),
                line.dropFirst(outcomeAt + 1).elementsEqual(expected[(outcomeAt + 1)..<(expected.count - 1)]),
                let outcome = Outcome(rawValue: line[line.startIndex + outcomeAt])
            else { return nil }
            outcomes.append(outcome)
        }
        var record = BuildRecord(
            scannedAt: scannedAt, key: key, manifest: manifest, snapshot: nil,
            skipped: skipped, inOtherShards: inOtherShards, outcomes: outcomes, variants: [], failures: [:],
            warnings: [])
        for line in lines {
            // Three lines an image: when the files are known to be there, a glance at each.
            if isPresent == nil, line.count > 2, line.first == UInt8(ascii: "v"), line[line.startIndex + 1] == 9 {
                continue
            }
            let fields = line.split(separator: 9, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return nil }
            let second = String(decoding: fields[1], as: UTF8.self)
            let third = String(decoding: fields[2], as: UTF8.self)
            switch fields[0].first {
            case UInt8(ascii: "s"): return nil  // a source more than the walk found
            case UInt8(ascii: "v"):
                guard let bytes = Int(second), isPresent?(third, bytes) ?? true else { return nil }
            case UInt8(ascii: "f"): record.failures[second] = third
            case UInt8(ascii: "w"): record.warnings.append(SourceWarning(path: second, message: third))
            default: return nil
            }
        }
        return record
    }
}
