import Foundation
import LadderImaging

/// Sources that failed to render, remembered by their content (SHA1) and by what the attempt
/// depended on (every recipe fingerprint, the decode limits, ladder's version), so that a
/// no-op build neither decodes a damaged file again nor waits out its time limit again. New
/// bytes, another recipe or other limits try the source again.
///
/// Part of the build state (`.ladder/failures`, one per shard): losing it costs only time.
struct FailureMemory: Sendable, Equatable {
    struct Failure: Sendable, Equatable {
        /// What the attempt depended on besides the bytes (see `attempt(fingerprints:limits:)`).
        var attempt: String
        var reason: String
    }

    /// By the SHA1 of the source's bytes.
    var bySHA1: [String: Failure] = [:]

    static let header = "ladder-failures 1"

    /// A SHA1 over everything besides the bytes that decides whether a render succeeds.
    static func attempt(fingerprints: [String: String], limits: DecodeLimits, ladderVersion: String) -> String {
        var lines = fingerprints.keys.sorted().map { "variant \($0) \(fingerprints[$0]!)" }
        lines += [
            "ladder \(ladderVersion)",
            "maxPixels \(limits.maxPixels)", "maxSide \(limits.maxSide)", "maxBands \(limits.maxBands)",
            "maxFileBytes \(limits.maxFileBytes)", "maxScans \(limits.maxScans)",
            "timeoutSeconds \(limits.timeoutSeconds)",
            "formats \(limits.formats.map(\.rawValue).sorted().joined(separator: ","))",
            "failOn \(limits.failOn)",
        ]
        return Checksum.hex(.sha1, of: Array(lines.joined(separator: "\n").utf8))
    }

    /// Why the source with `sha1` failed, when it failed under the same `attempt`.
    func reason(for sha1: String, attempt: String) -> String? {
        guard let failure = bySHA1[sha1], failure.attempt == attempt else { return nil }
        return failure.reason
    }

    // MARK: - Storage

    /// A header line, then one line per failure: sha1, attempt, reason, separated by tabs.
    func serialized() -> [UInt8] {
        var text = Self.header + "\n"
        for sha1 in bySHA1.keys.sorted() {
            let failure = bySHA1[sha1]!
            let reason = failure.reason.replacingOccurrences(of: "\t", with: " ")
                .replacingOccurrences(of: "\n", with: " ")
            text += "\(sha1)\t\(failure.attempt)\t\(reason)\n"
        }
        return Array(text.utf8)
    }

    /// Reads a serialized memory; an unreadable one is empty (sources are then tried again).
    init(serialized bytes: [UInt8]) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"))[...]
        guard let first = lines.popFirst(), String(decoding: first, as: UTF8.self) == Self.header else { return }
        for line in lines {
            let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 2, omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 3, fields[0].utf8.count == 40, fields[1].utf8.count == 40 else { continue }
            bySHA1[fields[0]] = Failure(attempt: fields[1], reason: fields[2])
        }
    }

    init() {}
}
