import Foundation
import LadderCore

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
    var removed: Int
    var output: String
    var manifest: String
    var manifestWritten: Bool
    var shard: ShardJSON?
    var inOtherShards: Int?

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
