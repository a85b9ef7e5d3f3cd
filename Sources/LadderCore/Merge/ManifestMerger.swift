import Foundation
package import LadderManifest

/// Joins the partial manifests of a sharded build into the manifest an unsharded build would
/// have written, byte for byte, after checking that they fit together: every shard is there
/// once, all ran on the same sources with the same pipeline and the same software, every source
/// is covered exactly once, and no two shards disagree about an image.
///
/// The partial manifests are read from the manifest's folder (`manifest.shard-K-of-N.json`
/// beside `manifest.json`), where the shards write them, and are deleted once merged unless
/// asked to keep them. Nothing is written when any check fails.
package struct ManifestMerger: Sendable {
    package let configuration: PipelineConfiguration
    /// Wait for a build holding the output folder (else fail at once).
    package var waitForLock: Bool
    /// Leave the partial manifests in place after merging.
    package var keepPartials: Bool

    package init(configuration: PipelineConfiguration, waitForLock: Bool = true, keepPartials: Bool = false) {
        self.configuration = configuration
        self.waitForLock = waitForLock
        self.keepPartials = keepPartials
    }

    package func run() throws(BuildError) -> MergeReport {
        try BuildError.mapping(operation: "merge", path: configuration.manifestPath) { try runLocked() }

    }

    private func runLocked() throws -> MergeReport {
        let output = try Directory.create(configuration.outputDirectory)
        let lock = try Builder.acquire(
            waitAllowed: waitForLock, folder: configuration.outputDirectory, announce: { _ in }
        ) { wait in try output.lockFile(OutputOwnership.lockFileName, wait: wait) }
        defer { withExtendedLifetime(lock) {} }

        let manifestPath = configuration.manifestPath
        let folder = try Directory.create(FilePath.parent(manifestPath))
        let names = try folder.entries().filter { Shard.isPartialManifestName($0, for: manifestPath) }
        var report = MergeReport(manifestPath: manifestPath, partials: names.map { FilePath.join(folder.path, $0) })

        var partials: [(name: String, manifest: Manifest)] = []
        for name in names {
            do {
                let bytes = try folder.readFile(name)
                partials.append((name, try Manifest(jsonData: Data(bytes))))
            } catch {
                report.problems.append(
                    MergeProblem(path: FilePath.join(folder.path, name), kind: .unreadable, message: "\(error)"))
            }
        }
        if names.isEmpty {
            let pattern = Shard.partialManifestName(for: manifestPath, index: 1, count: 2)
                .replacingOccurrences(of: "1-of-2", with: "K-of-N")
            report.problems.append(
                MergeProblem(
                    path: folder.path, kind: .noPartials,
                    message:
                        "no partial manifests (\(pattern)) here; run ladder build --shard K/N for every shard and gather their output in this folder"
                ))
        }
        guard report.problems.isEmpty else { return report }

        let (merged, problems) = Self.merge(partials, manifestPath: manifestPath)
        report.problems = problems.map {
            var problem = $0
            problem.path = FilePath.join(folder.path, problem.path)
            return problem
        }
        guard let merged, report.problems.isEmpty else { return report }
        report.shards = partials.count
        report.sources = partials.first?.manifest.shard?.sources ?? 0
        report.images = merged.images.count
        report.failures = merged.failures.count

        try ManifestIndexWriter(manifestFolder: folder, manifestName: FilePath.name(manifestPath)).write(merged)
        let data = [UInt8](merged.jsonData())
        let name = FilePath.name(manifestPath)
        if (try? folder.readFile(name)) != data {
            try folder.writeAtomically(data, to: name)
            report.manifestWritten = true
        }
        if !keepPartials {
            for partial in names { try folder.removeFile(partial) }
            report.partialsRemoved = names.count
        }
        try folder.synchronize()
        return report
    }

    // MARK: - Checks

    /// Merges partial manifests, each with the name it was read from (problems are reported
    /// against that name); returns the merged manifest only when there is no problem.
    package static func merge(
        _ partials: [(name: String, manifest: Manifest)], manifestPath: String = "manifest.json"
    ) -> (Manifest?, [MergeProblem]) {
        var problems: [MergeProblem] = []
        var shards: [(name: String, manifest: Manifest, shard: Manifest.Shard)] = []
        for (name, manifest) in partials {
            if let shard = manifest.shard {
                shards.append((name, manifest, shard))
            } else {
                problems.append(
                    MergeProblem(
                        path: name, kind: .notPartial,
                        message: "a whole build's manifest, not one shard's (it has no \"shard\")"))
            }
        }
        shards.sort { ($0.shard.count, $0.shard.index, $0.name) < ($1.shard.count, $1.shard.index, $1.name) }
        guard let reference = shards.first else { return (nil, problems) }

        // Every shard once, all from the same split.
        let counts = Set(shards.map(\.shard.count))
        if counts.count > 1 {
            for (name, _, shard) in shards where shard.count != reference.shard.count {
                problems.append(
                    MergeProblem(
                        path: name, kind: .differentSplit,
                        message:
                            "shard \(shard.index) of \(shard.count), but \(reference.name) is one of \(reference.shard.count): these are partial manifests of two builds split differently; delete those of the older one"

                    ))
            }
            return (nil, problems)
        }
        let count = reference.shard.count
        let byIndex = Dictionary(grouping: shards, by: \.shard.index)
        for index in 1...count {
            let found = byIndex[index] ?? []
            if found.isEmpty {
                problems.append(
                    MergeProblem(
                        path: Shard.partialManifestName(for: manifestPath, index: index, count: count),
                        kind: .missingShard,
                        message: "shard \(index) of \(count) is missing; run ladder build --shard \(index)/\(count)"))
            }
            for duplicate in found.dropFirst() {
                problems.append(
                    MergeProblem(
                        path: duplicate.name, kind: .duplicateShard,
                        message: "shard \(index) of \(count) again (also \(found[0].name))"))
            }
        }

        // The same sources, pipeline and software.
        for (name, manifest, shard) in shards.dropFirst() {
            if shard.sources != reference.shard.sources || shard.sourcesSHA1 != reference.shard.sourcesSHA1 {
                problems.append(
                    MergeProblem(
                        path: name, kind: .differentSources,
                        message:
                            "shard \(shard.index)/\(count) found \(shard.sources) sources, shard \(reference.shard.index)/\(count) \(reference.shard.sources)\(shard.sources == reference.shard.sources ? " with other names" : ""): the shards ran on different source trees; run every shard on the same commit"
                    ))
            }
            let variants = Set(shard.recipes.keys).union(reference.shard.recipes.keys).sorted()
            let differing = variants.filter { shard.recipes[$0] != reference.shard.recipes[$0] }
            if !differing.isEmpty {
                problems.append(
                    MergeProblem(
                        path: name, kind: .differentPipeline,
                        message:
                            "shard \(shard.index)/\(count) made \(differing.joined(separator: ", ")) with other recipes than shard \(reference.shard.index)/\(count): the shards ran with different pipelines"
                    ))
            }
            if manifest.generator != reference.manifest.generator {
                problems.append(
                    MergeProblem(
                        path: name, kind: .differentGenerator,
                        message:
                            "made by \(Self.describe(manifest.generator)), shard \(reference.shard.index)/\(count) by \(Self.describe(reference.manifest.generator)): run every shard with the same ladder"
                    ))
            }
        }
        guard problems.isEmpty else { return (nil, problems) }

        // Every source exactly once; every image in its own shard only.
        var images: [String: Manifest.ImageEntry] = [:]
        var imageShard: [String: Int] = [:]
        var failures: [String: String] = [:]
        var failureSHA1: [String: String] = [:]
        // By the path's bytes: names that differ only by Unicode normalization are two sources.
        var sourceShard: [[UInt8]: Int] = [:]
        for (name, manifest, shard) in shards {
            let owner = Shard(index: shard.index, count: shard.count)!
            func cover(_ source: String) {
                if let other = sourceShard[Array(source.utf8)] {
                    problems.append(
                        MergeProblem(
                            path: name, kind: .overlap,
                            message: "\(source) is in shard \(other)/\(count) and in shard \(shard.index)/\(count)"))
                } else {
                    sourceShard[Array(source.utf8)] = shard.index
                }
            }
            for sha1 in manifest.images.keys.sorted() {
                let entry = manifest.images[sha1]!
                if !owner.owns(sha1: sha1) {
                    problems.append(
                        MergeProblem(
                            path: name, kind: .wrongShard,
                            message: "image \(sha1) belongs to another shard than \(shard.index)/\(count)"))
                }
                if let other = imageShard[sha1] {
                    let agreement = images[sha1].map { Self.sameVariants($0, entry) } ?? false
                    problems.append(
                        MergeProblem(
                            path: name, kind: .overlap,
                            message:
                                "image \(sha1) is in shard \(other)/\(count) and in shard \(shard.index)/\(count)\(agreement ? "" : ", and they disagree about its variants")"
                        ))
                } else {
                    images[sha1] = entry
                    imageShard[sha1] = shard.index
                }
                for source in entry.sources { cover(source) }
            }
            for source in manifest.failures.keys.sorted() {
                cover(source)
                failures[source] = manifest.failures[source]
                if let sha1 = manifest.failureSHA1?[source] { failureSHA1[source] = sha1 }
            }
        }
        let covered = sourceShard.keys.sorted { $0.lexicographicallyPrecedes($1) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        if covered.count != reference.shard.sources
            || Builder.sourceListSHA1(covered) != reference.shard.sourcesSHA1
        {
            problems.append(
                MergeProblem(
                    path: reference.name, kind: .uncovered,
                    message:
                        "the shards cover \(covered.count) sources but found \(reference.shard.sources); a shard's manifest is incomplete: build it again"
                ))
        }
        guard problems.isEmpty else { return (nil, problems) }
        // Every shard ran the same recipes (checked above): their descriptions are one set.
        var recipes: [String: [String]] = [:]
        for (_, manifest) in partials { recipes.merge(manifest.recipes ?? [:]) { first, _ in first } }
        let merged = Manifest(
            generator: reference.manifest.generator, images: images, failures: failures,
            failureSHA1: failureSHA1.isEmpty ? nil : failureSHA1, recipes: recipes.isEmpty ? nil : recipes)
        return (merged, [])
    }

    private static func sameVariants(_ first: Manifest.ImageEntry, _ second: Manifest.ImageEntry) -> Bool {
        var first = first
        var second = second
        first.sources = []
        second.sources = []
        return first == second
    }

    private static func describe(_ generator: Manifest.Generator) -> String {
        "ladder \(generator.ladder) (libvips \(generator.libvips), libjpeg-turbo \(generator.libjpeg))"
    }
}

/// What `ladder merge` did, or why it did not.
package struct MergeReport: Sendable, Equatable {
    package var manifestPath: String
    /// The partial manifests found.
    package var partials: [String]
    package var problems: [MergeProblem] = []
    package var shards = 0
    package var sources = 0
    package var images = 0
    package var failures = 0
    package var manifestWritten = false
    package var partialsRemoved = 0

    package var ok: Bool { problems.isEmpty }
}

/// Why partial manifests cannot be merged: which file, and what is wrong.
package struct MergeProblem: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case noPartials = "no-partials"
        case unreadable
        case notPartial = "not-partial"
        case differentSplit = "different-split"
        case missingShard = "missing-shard"
        case duplicateShard = "duplicate-shard"
        case differentSources = "different-sources"
        case differentPipeline = "different-pipeline"
        case differentGenerator = "different-generator"
        case wrongShard = "wrong-shard"
        case overlap
        case uncovered
    }

    package var path: String
    package var kind: Kind
    package var message: String
}
