import Foundation
import LadderImaging
import LadderManifest

/// The build record (`BuildRecord`): what a build keeps so that the next one, when nothing
/// changed, ends after the walk without reading the manifest.
extension Builder {
    /// A SHA1 of everything besides the sources that decides what a build of `scope` writes:
    /// each recipe's description (its fingerprint's lines), what a render attempt depended on
    /// (`FailureMemory.attempt`: the fingerprints, the decode limits, ladder's version), the
    /// generator's versions, where the manifest is and what its paths start with, and the
    /// failure memory's bytes.
    static func recordKey(
        scope: BuildScope, descriptions: [String: [String]], attempt: String, generator: Manifest.Generator,
        failureMemory: [UInt8]
    ) -> String {
        var lines = descriptions.keys.sorted().flatMap { ["variant \($0)"] + descriptions[$0]! }
        lines += [
            "attempt \(attempt)",
            "generator \(generator.ladder) \(generator.libvips) \(generator.libjpeg) \(generator.libexif ?? "-")",
            "manifest \(scope.manifestPath)", "prefix \(scope.configuration.outputPrefixInManifest)",
            "shard \(scope.reportedShard?.tag ?? "-")", "index \(scope.writesIndex)",
            "failures \(Checksum.hex(.sha1, of: failureMemory))",
        ]
        return Checksum.hex(.sha1, of: Array(lines.joined(separator: "\n").utf8))
    }

    /// The report of a build that found nothing changed since `unchanged` was recorded, with
    /// the observer told what it would have been told by a full build.
    func report(
        unchanged: BuildRecord, files: [SourceFile], walkWarnings: [SourceWarning], started: Date
    ) -> BuildReport {
        if let observer {
            for (file, outcome) in zip(files, unchanged.outcomes) {
                switch outcome {
                case .upToDate: observer.sourceFinished(file.path, outcome: .upToDate)
                case .inOtherShard: observer.sourceFinished(file.path, outcome: .inOtherShard)
                case .failed: observer.sourceFinished(file.path, outcome: .failed(unchanged.failures[file.path] ?? ""))
                }
            }
            for warning in unchanged.warnings { observer.warning("\(warning.path): \(warning.message)") }
        }
        let scope = BuildScope(configuration: configuration, shard: options.shard)
        var report = BuildReport(
            sources: files.count, built: 0, skipped: unchanged.skipped, shard: scope.reportedShard,
            inOtherShards: unchanged.inOtherShards,
            failed: unchanged.failures.sorted { $0.key < $1.key }.map {
                BuildReport.Failure(source: $0.key, reason: $0.value)
            },
            warnings: (walkWarnings + unchanged.warnings).sorted { $0.path < $1.path }, hashed: 0,
            filesWritten: 0, filesRemoved: 0, manifestWritten: false, manifestPath: scope.manifestPath,
            outputDirectory: configuration.outputDirectory, seconds: Date().timeIntervalSince(started))
        report.unchanged = true
        return report
    }

    /// Records what this build found and wrote (`manifest`, now on disk), so that the next build
    /// can see that nothing changed; a build that could not read some source records nothing,
    /// so that the next one reads it again.
    func saveRecord(
        store: BuildStateStore, work: WorkList, files: [SourceFile], manifest: Manifest, manifestFolder: Directory,
        scannedAt: Int64, mismatches: [SourceWarning], key: String
    ) {
        var outcomes: [BuildRecord.Outcome] = []
        outcomes.reserveCapacity(files.count)
        for (file, role) in zip(files, work.roles) {
            switch role {
            case .image: outcomes.append(manifest.failures[file.path] == nil ? .upToDate : .failed)
            case .inOtherShard: outcomes.append(.inOtherShard)
            case .unreadable: break
            }
        }
        guard outcomes.count == files.count,
            let manifestStatus = try? manifestFolder.status(of: FilePath.name(store.scope.manifestPath))
        else {
            store.removeRecord()
            return
        }
        var variants: [(path: String, bytes: Int)] = []
        for sha1 in manifest.images.keys.sorted() {
            let entry = manifest.images[sha1]!
            for name in entry.variants.keys.sorted() {
                let variant = entry.variants[name]!
                variants.append((variant.path, variant.bytes))
                // Its format siblings too: a no-op build must see one deleted by hand.
                for format in (variant.formats ?? [:]).keys.sorted() {
                    variants.append((variant.formats![format]!.path, variant.formats![format]!.bytes))
                }
            }
        }
        let record = BuildRecord(
            scannedAt: scannedAt, key: key, manifest: manifestStatus, snapshot: store.snapshotStatus(),
            skipped: manifest.images.count,
            inOtherShards: work.inOtherShardsCount, outcomes: outcomes, variants: variants,
            failures: manifest.failures, warnings: mismatches)
        store.save(record, files: files)
    }
}
