import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// Splitting a build over machines with `--shard K/N` and joining it with `ladder merge`.
@Suite("Sharding")
struct ShardingTests {
    static let manifestPath = "build/variants/manifest.json"

    /// A project with photos in two folders, two files with the same bytes and a broken file.
    static func project(photos: Int = 12) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<photos {
            let image = try TestImages.gradientJPEG(width: 180 + index * 7, height: 120, seed: index)
            try folder.write(image, to: index % 2 == 0 ? "photos/p\(index).jpg" : "photos/trip/p\(index).jpg")
        }
        try folder.write(folder.read("photos/p0.jpg"), to: "photos/copy-of-p0.jpg")
        try folder.write("not a photo", to: "photos/notes.jpg")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        return folder
    }

    /// A copy of `project`'s sources and pipeline, as another machine would check it out.
    static func checkout(of project: TemporaryDirectory) throws -> TemporaryDirectory {
        let copy = TemporaryDirectory()
        try copy.copyFiles(from: project, under: "photos")
        try copy.write(project.read("pipeline.json"), to: "pipeline.json")
        return copy
    }

    static func shard(_ index: Int, of count: Int) -> Shard { Shard(index: index, count: count)! }

    static func randomSHA1() -> String {
        (0..<40).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
    }

    // MARK: - Whole builds

    @Test("N shards built on separate machines and merged equal one unsharded build, byte for byte")
    func mergedEqualsUnsharded() throws {
        let whole = try Self.project()
        try Pipelines.build(in: whole)

        let gathered = try Self.checkout(of: whole)
        for index in 1...3 {
            let machine = try Self.checkout(of: whole)
            let report = try Pipelines.build(in: machine, shard: Self.shard(index, of: 3))
            #expect(report.shard == Self.shard(index, of: 3))
            #expect(!machine.exists(Self.manifestPath), "a shard writes only its partial manifest")
            try gathered.copyFiles(from: machine, under: "build/variants")
        }
        let merge = try Pipelines.merge(in: gathered)
        #expect(merge.ok, "\(merge.problems)")
        #expect(merge.shards == 3 && merge.images == 12 && merge.failures == 1)
        #expect(try gathered.read(Self.manifestPath) == whole.read(Self.manifestPath))
        #expect(try gathered.contents(under: "build/variants") == whole.contents(under: "build/variants"))
    }

    @Test("shards sharing one output folder run at the same time and merge to the unsharded build")
    func concurrentShardsShareAFolder() async throws {
        let whole = try Self.project()
        try Pipelines.build(in: whole)
        let shared = try Self.checkout(of: whole)
        try await withThrowingTaskGroup(of: BuildReport.self) { group in
            for index in 1...4 {
                group.addTask { try Pipelines.build(in: shared, jobs: 1, shard: Self.shard(index, of: 4)) }
            }
            let reports = try await group.reduce(into: []) { $0.append($1) }
            #expect(reports.reduce(0) { $0 + $1.built } == 12, "every image built by exactly one shard")
        }
        #expect(try Pipelines.merge(in: shared).ok)
        #expect(try shared.contents(under: "build/variants") == whole.contents(under: "build/variants"))
    }

    @Test("after a merge, building a shard again makes nothing and deletes nothing of the others")
    func shardRebuildAfterMerge() throws {
        let folder = try Self.project()
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        try Pipelines.merge(in: folder)
        let before = try folder.contents(under: "build/variants")
        let report = try Pipelines.build(in: folder, shard: Self.shard(1, of: 2))
        #expect(report.built == 0 && report.filesWritten == 0 && report.filesRemoved == 0)
        var after = try folder.contents(under: "build/variants")
        after["manifest.shard-1-of-2.json"] = nil
        #expect(after == before)
    }

    @Test(
        "verify after a merge that kept the partial manifests: they are the pipeline's own, and what only a shard built since lists is known"
    )
    func verifyWithKeptPartials() throws {
        let folder = try Self.project()
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        try Pipelines.merge(in: folder, keepPartials: true)
        let configuration = try Pipelines.configuration(in: folder)
        let partial = "build/variants/manifest.shard-1-of-2.json"
        #expect(folder.exists(partial))
        #expect(Verifier(configuration: configuration).run().problems.isEmpty)
        let kept = try folder.read(partial)
        try folder.write("not a manifest", to: partial)
        #expect(
            Verifier(configuration: configuration).run().problems.isEmpty,
            "a partial manifest is the pipeline's own by its name, what it holds is merge's to check")
        try folder.write(kept, to: partial)
        // A photo is added and the shards built again, not merged: its variants, which only a
        // partial manifest lists, are not orphans, and the photo is new to the manifest.
        let photo = "photos/new.jpg"
        try folder.write(TestImages.gradientJPEG(width: 233, height: 144, seed: 99), to: photo)
        let built = try (1...2).map { try Pipelines.build(in: folder, shard: Self.shard($0, of: 2)).built }
        #expect(built.sorted() == [0, 1])
        let problems = Verifier(configuration: configuration).run().problems
        #expect(problems.map { "\($0.path) \($0.kind.rawValue)" } == [photo + " stale"], "\(problems)")
        // A stray file is still found, whatever the partial manifests list.
        try folder.write([1, 2, 3], to: "build/variants/ab/stray.jpg")
        let withStray = Verifier(configuration: configuration).run().problems.map { "\($0.path) \($0.kind.rawValue)" }
        #expect(withStray.sorted() == [photo + " stale", "build/variants/ab/stray.jpg orphan"].sorted())
    }

    @Test("adding sources never moves the others to another shard")
    func stableAsSourcesAreAdded() throws {
        let folder = try Self.project(photos: 10)
        func sourcesOfShards() throws -> [Set<String>] {
            try (1...3).map { index in
                try Pipelines.build(in: folder, shard: Self.shard(index, of: 3))
                let partial = try Manifest(
                    jsonData: Data(folder.read("build/variants/manifest.shard-\(index)-of-3.json")))
                return Set(partial.images.values.flatMap(\.sources) + partial.failures.keys)
            }
        }
        let before = try sourcesOfShards()
        for index in 10..<30 {
            try folder.write(
                TestImages.gradientJPEG(width: 90, height: 60, seed: 100 + index), to: "photos/new\(index).jpg")
        }
        let after = try sourcesOfShards()
        for index in 0..<3 { #expect(before[index].isSubset(of: after[index])) }
        #expect(after.reduce(0) { $0 + $1.count } == 32, "each of the 32 sources in exactly one shard")
    }

    // MARK: - Merge checks

    @Test("a missing shard is named and nothing is written")
    func missingShard() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder, shard: Self.shard(1, of: 3))
        try Pipelines.build(in: folder, shard: Self.shard(3, of: 3))
        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.missingShard])
        #expect(report.problems.first?.path.hasSuffix("manifest.shard-2-of-3.json") == true)
        #expect(report.problems.first?.message.contains("--shard 2/3") == true)
        #expect(!folder.exists(Self.manifestPath))
        #expect(folder.exists("build/variants/manifest.shard-1-of-3.json"), "inputs are kept when the merge fails")
    }

    @Test("shards run on different source trees or pipelines are refused")
    func disagreeingShards() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder, shard: Self.shard(1, of: 2))
        try folder.write(TestImages.gradientJPEG(width: 90, height: 60, seed: 77), to: "photos/late.jpg")
        try Pipelines.write(
            #"{"sources": ["photos"], "variants": {"small_thumb": {"maxWidth": 100, "maxHeight": 100, "quality": 80}}}"#,
            in: folder)
        try Pipelines.build(in: folder, shard: Self.shard(2, of: 2))
        let report = try Pipelines.merge(in: folder)
        #expect(Set(report.problems.map(\.kind)) == [.differentSources, .differentPipeline])
        #expect(report.problems.allSatisfy { $0.path.hasSuffix("manifest.shard-2-of-2.json") })
        #expect(!folder.exists(Self.manifestPath))
    }

    @Test("partial manifests of an older split are refused, not mixed in")
    func staleSplit() throws {
        let folder = try Self.project()
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        for index in 1...3 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 3)) }
        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.differentSplit, .differentSplit, .differentSplit])
        #expect(report.problems.allSatisfy { $0.path.contains("-of-3.json") })

    }

    /// A project of `photos` built in two shards, and what the first shard's partial manifest
    /// becomes once `edit` has changed it, given the second's.
    static func twoShards(
        photos: Int, editingFirst edit: (inout Manifest, Manifest) throws -> Void
    ) throws -> TemporaryDirectory {
        let folder = try Self.project(photos: photos)
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        let first = "build/variants/manifest.shard-1-of-2.json"
        var one = try Manifest(jsonData: Data(folder.read(first)))
        try edit(&one, Manifest(jsonData: Data(folder.read("build/variants/manifest.shard-2-of-2.json"))))
        try folder.write(Array(one.jsonData()), to: first)
        return folder
    }

    @Test("an image in two shards, or a source covered twice, is refused")
    func overlap() throws {
        var sha1 = ""
        let folder = try Self.twoShards(photos: 4) { one, two in
            let (key, entry) = try #require(two.images.first)
            one.images[key] = entry
            sha1 = key
        }
        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.contains { $0.kind == .wrongShard && $0.message.contains(sha1) })
        #expect(report.problems.contains { $0.kind == .overlap && $0.message.contains(sha1) })
        #expect(!folder.exists(Self.manifestPath))
    }

    @Test("a source claimed by images of two shards, each image in its own shard, is refused and named")
    func sourceClaimedTwice() throws {
        var claimed = ""
        let folder = try Self.twoShards(photos: 6) { one, two in
            claimed = try #require(two.images.values.first?.sources.first)
            let (sha1, _) = try #require(one.images.first)
            one.images[sha1]?.sources.append(claimed)
        }
        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.overlap], "\(report.problems)")
        #expect(report.problems.first?.message.contains(claimed) == true)
        #expect(!folder.exists(Self.manifestPath))
        #expect(!folder.exists("build/variants/index/layout.json"), "no index is put in place")
    }

    @Test("a merge that finds a problem after it began writing leaves the manifest and index as they were")
    func problemWhileWriting() throws {
        let folder = try Self.project()
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        #expect(try Pipelines.merge(in: folder).ok)
        let merged = try folder.contents(under: "build/variants")
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        // The image of the highest SHA1 left out: a shard found a source it does not list,
        // which only the end of the images tells.
        let partials = (1...2).map { "build/variants/manifest.shard-\($0)-of-2.json" }
        var manifests = try partials.map { try Manifest(jsonData: Data(folder.read($0))) }
        let last = try #require(manifests.flatMap(\.images.keys).max())
        let holder = try #require(manifests.firstIndex { $0.images[last] != nil })
        manifests[holder].images[last] = nil
        try folder.write(Array(manifests[holder].jsonData()), to: partials[holder])

        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.uncovered])
        var left = try folder.contents(under: "build/variants")
        for partial in partials { left[FilePath.name(partial)] = nil }
        #expect(left.keys.sorted() == merged.keys.sorted(), "no temporary file is left")
        #expect(left == merged)
    }

    @Test("shards with no image at all are checked too: a source left out is found")
    func noImages() throws {
        let folder = TemporaryDirectory()
        for index in 0..<4 { try folder.write("not a photo \(index)", to: "photos/p\(index).jpg") }
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        let partials = (1...2).map { "build/variants/manifest.shard-\($0)-of-2.json" }
        var manifests = try partials.map { try Manifest(jsonData: Data(folder.read($0))) }
        #expect(manifests.map(\.images.count) == [0, 0])
        let holder = try #require(manifests.firstIndex { !$0.failures.isEmpty })
        let left = try #require(manifests[holder].failures.keys.min())
        manifests[holder].failures[left] = nil
        manifests[holder].failureSHA1?[left] = nil
        try folder.write(Array(manifests[holder].jsonData()), to: partials[holder])

        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.uncovered])
        #expect(!folder.exists(Self.manifestPath))
    }

    @Test("a shard whose images are out of order merges to the unsharded build all the same")
    func shardOutOfOrder() throws {
        let whole = try Self.project()
        try Pipelines.build(in: whole)
        let folder = try Self.checkout(of: whole)
        for index in 1...2 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 2)) }
        let partial = "build/variants/manifest.shard-1-of-2.json"
        var manifest = try Manifest(jsonData: Data(folder.read(partial)))
        let images = manifest.images.sorted { $0.key > $1.key }
        #expect(images.count > 2)
        manifest.images = [:]
        let pieces = Manifest.JSONPieces(header: manifest)
        var text = pieces.opening
        for (position, (sha1, entry)) in images.enumerated() { text += pieces.image(sha1, entry, first: position == 0) }
        text += pieces.closing
        try folder.write(Array(text), to: partial)

        let report = try Pipelines.merge(in: folder)
        #expect(report.ok, "\(report.problems)")
        #expect(try folder.read(Self.manifestPath) == whole.read(Self.manifestPath))
    }

    @Test("every unreadable partial manifest is named, in the order of their names, with why")
    func unreadablePartials() throws {
        let folder = try Self.project(photos: 6)
        for index in 1...3 { try Pipelines.build(in: folder, shard: Self.shard(index, of: 3)) }
        let first = "build/variants/manifest.shard-1-of-3.json"
        let third = "build/variants/manifest.shard-3-of-3.json"
        let whole = try folder.read(first)
        try folder.write(Array(whole.prefix(whole.count / 2)), to: first)
        let original = try String(decoding: folder.read(third), as: UTF8.self)
        let text = original.replacingOccurrences(of: #""version" : 1"#, with: #""version" : "one""#)
        try #require(text != original, "the third's version is spoilt")
        try folder.write(text, to: third)
        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.unreadable, .unreadable])
        #expect(report.problems.first?.path.hasSuffix("manifest.shard-1-of-3.json") == true)
        #expect(report.problems.last?.path.hasSuffix("manifest.shard-3-of-3.json") == true)
        #expect(report.problems.first?.message.contains("JSON") == true, "\(report.problems)")
        #expect(report.problems.last?.message.contains("version") == true, "\(report.problems)")
        #expect(!folder.exists(Self.manifestPath))
    }

    @Test("merging with no partial manifests says how to make them")
    func nothingToMerge() throws {
        let folder = try Self.project(photos: 1)
        let report = try Pipelines.merge(in: folder)
        #expect(report.problems.map(\.kind) == [.noPartials])
        #expect(report.problems.first?.message.contains("--shard K/N") == true)
    }

    // MARK: - Shard selection

    @Test("every SHA1 belongs to exactly one shard, and shards get even shares")
    func partition() {
        let count = 4
        var shares = [Int](repeating: 0, count: count)
        for _ in 0..<4000 {
            let sha1 = Self.randomSHA1()
            let owners = (1...count).filter { Self.shard($0, of: count).owns(sha1: sha1) }
            #expect(owners.count == 1)
            if let owner = owners.first { shares[owner - 1] += 1 }
        }
        #expect(shares.allSatisfy { (800...1200).contains($0) }, "\(shares)")
    }

    @Test(
        "--shard reads K/N, or the index from the CI system's variable, counted from 0",
        arguments: [
            ("2/5", [:], 2, 5),
            ("auto/4", ["JOB_COMPLETION_INDEX": "0"], 1, 4),
            ("auto/4", ["AWS_BATCH_JOB_ARRAY_INDEX": "3"], 4, 4),
            ("auto", ["LADDER_SHARD_INDEX": "1", "LADDER_SHARD_COUNT": "2"], 2, 2),
            ("auto/3", ["LADDER_SHARD_INDEX": "2", "JOB_COMPLETION_INDEX": "0"], 3, 3),
        ] as [(String, [String: String], Int, Int)])
    func parsing(text: String, environment: [String: String], index: Int, count: Int) throws {
        #expect(try Shard(parsing: text, environment: environment) == Self.shard(index, of: count))
    }

    @Test(
        "--shard values that cannot be meant are refused with what to write instead",
        arguments: [
            ("0/3", [:], "from 1 to 3"),
            ("4/3", [:], "from 1 to 3"),
            ("1/0", [:], "number of shards"),
            ("half", [:], "K/N"),
            ("auto", ["JOB_COMPLETION_INDEX": "1"], "LADDER_SHARD_COUNT"),
            ("auto/3", [:], "JOB_COMPLETION_INDEX"),
            ("auto/3", ["JOB_COMPLETION_INDEX": "3"], "from 0 to 2"),
        ] as [(String, [String: String], String)])
    func badSpecifications(text: String, environment: [String: String], hint: String) {
        #expect {
            try Shard(parsing: text, environment: environment)
        } throws: { error in
            "\(error)".contains(hint)
        }
    }
}
