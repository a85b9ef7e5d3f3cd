import Foundation
import LadderCore
import LadderImaging

/// The `ladder build --json` object: `{"built", "skipped", "failed", "seconds", ...}`.
struct BuildSummaryJSON: Encodable {
    struct Failure: Encodable {
        var source: String
        var reason: String
    }

    struct Warning: Encodable {
        var source: String
        var message: String
    }

    var built: Int
    var skipped: Int
    var failed: [Failure]
    var warnings: [Warning]
    var seconds: Double
    var sources: Int
    var hashed: Int
    var written: Int
    /// Format siblings written and skipped (not smaller than their JPEG at equal quality), by
    /// format; absent when the pipeline asks for none.
    var siblings: Siblings?
    var removed: Int
    var output: String
    var manifest: String
    var manifestWritten: Bool
    var shard: ShardJSON?
    var inOtherShards: Int?

    struct Siblings: Encodable {
        var written: [String: Int]
        var skipped: [String: Int]
    }

    struct ShardJSON: Encodable {
        var index: Int
        var count: Int
    }

    init(_ report: BuildReport) {
        built = report.built
        skipped = report.skipped
        failed = report.failed.map { Failure(source: $0.source, reason: $0.reason) }
        warnings = report.warnings.map { Warning(source: $0.path, message: $0.message) }

        seconds = (report.seconds * 1000).rounded() / 1000
        sources = report.sources
        hashed = report.hashed
        written = report.filesWritten
        if !report.siblingsWritten.isEmpty || !report.siblingsSkipped.isEmpty {
            siblings = Siblings(
                written: Dictionary(uniqueKeysWithValues: report.siblingsWritten.map { ($0.key.rawValue, $0.value) }),
                skipped: Dictionary(uniqueKeysWithValues: report.siblingsSkipped.map { ($0.key.rawValue, $0.value) }))
        }
        removed = report.filesRemoved
        output = displayPath(report.outputDirectory)
        manifest = displayPath(report.manifestPath)
        manifestWritten = report.manifestWritten
        shard = report.shard.map { ShardJSON(index: $0.index, count: $0.count) }
        inOtherShards = report.shard.map { _ in report.inOtherShards }

    }

    func encoded() -> String { encodeJSONLine(self) }
}

/// One JSON object, keys sorted, on one line with a final newline.
func encodeJSONLine(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self) + "\n"
}
