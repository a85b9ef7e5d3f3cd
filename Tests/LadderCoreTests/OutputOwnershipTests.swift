import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A build touches only what is its own: the files its previous manifest listed and its own
/// leftovers; paths are told apart by their bytes; failed sources are remembered by content.
@Suite("Output ownership")
struct OutputOwnershipTests {
    /// Two pipelines, `a/` and `b/`, each with its own photos, writing into one folder `out/`
    /// with manifests `out/a.json` and `out/b.json`.
    static func twoPipelines() throws -> TemporaryDirectory { try pipelines(["a", "b"]) }

    /// Pipelines named `names`, each `name/` with a photo of its own, all writing into `out/`
    /// with manifests `out/name.json`.
    static func pipelines(_ names: [String]) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for (index, name) in names.enumerated() {
            try folder.write(
                TestImages.gradientJPEG(width: 300 + index * 20, height: 200, seed: 40 + index),
                to: "\(name)/photos/\(name).jpg")
            try folder.write(
                #"{"sources": ["photos"], "output": "../out", "manifest": "../out/\#(name).json"}"#,
                to: "\(name)/pipeline.json")
        }
        return folder
    }

    @discardableResult
    static func build(_ pipeline: String, in folder: TemporaryDirectory) throws -> BuildReport {
        let configuration = try PipelineConfiguration.load(from: folder.path(pipeline + "/pipeline.json"))
        return try Pipelines.build(configuration, options: Builder.Options(jobs: 2))
    }

    static func variantFiles(of manifest: String, in folder: TemporaryDirectory) throws -> [String] {
        let parsed = try Manifest(jsonData: Data(folder.read("out/" + manifest)))
        return parsed.images.values.flatMap { $0.variants.values.map { "out/" + $0.path } }.sorted()
    }

    @Test(
        "two pipelines share an output folder: neither build deletes the other's variants, neither verify calls them unknown"
    )
    func sharedOutputFolder() throws {
        let folder = try Self.twoPipelines()
        try Self.build("a", in: folder)
        try Self.build("b", in: folder)
        let report = try Self.build("a", in: folder)
        #expect(report.filesRemoved == 0)
        let files = try Self.variantFiles(of: "a.json", in: folder) + Self.variantFiles(of: "b.json", in: folder)
        #expect(files.count == 6)
        for file in files { #expect(folder.exists(file), "\(file) is still there") }
        for name in ["a", "b"] {
            let configuration = try PipelineConfiguration.load(from: folder.path(name + "/pipeline.json"))
            let verified = Verifier(configuration: configuration, options: Verifier.Options(jobs: 2)).run()
            #expect(verified.problems.isEmpty, "verify of \(name): \(verified.problems)")
        }
        // Each manifest has an index of its own, named after it, holding only its images.
        for name in ["a", "b"] {
            let manifest = try Manifest(jsonData: Data(folder.read("out/\(name).json")))
            let sha1 = try #require(manifest.images.keys.first)
            let index = try ManifestIndex(
                jsonData: Data(folder.read("out/\(name).index/" + sha1.prefix(2) + ".json")),
                prefix: String(sha1.prefix(2)))
            #expect(index.images.keys.sorted() == manifest.images.keys.sorted())
        }
    }

    @Test(
        "four pipelines share an output folder: each verify knows the other three's files, and a stray file is the one orphan"
    )
    func manyManifestsInOneFolder() throws {
        let names = ["a", "b", "c", "d"]
        let folder = try Self.pipelines(names)
        for name in names { try Self.build(name, in: folder) }
        let stray = "out/ab/ab" + String(repeating: "0", count: 38) + "-full-12345678.jpg"
        try folder.write([1, 2, 3], to: stray)
        for name in names {
            let configuration = try PipelineConfiguration.load(from: folder.path(name + "/pipeline.json"))
            let verified = Verifier(configuration: configuration, options: Verifier.Options(jobs: 3)).run()
            #expect(
                verified.problems.map { "\($0.path) \($0.kind.rawValue)" } == ["../" + stray + " orphan"],
                "verify of \(name)")
        }
        // The build's clean phase reads the other manifests too: a change to one pipeline's photo
        // removes its old files and none of the others'.
        let others = try names.dropFirst().flatMap { try Self.variantFiles(of: $0 + ".json", in: folder) }
        #expect(others.count == 9)
        try folder.write(TestImages.gradientJPEG(width: 330, height: 210, seed: 91), to: "a/photos/a.jpg")
        #expect(try Self.build("a", in: folder).filesRemoved == 3)
        for file in others { #expect(folder.exists(file), "\(file) is still there") }
    }

    @Test("a build deletes the variants its previous manifest listed, and no variant-named file it never wrote")
    func deletesOnlyWhatItOwned() throws {
        let folder = try Self.twoPipelines()
        try Self.build("a", in: folder)
        let stranger = "out/ab/ab" + String(repeating: "0", count: 38) + "-full-12345678.jpg"
        try folder.write([1, 2, 3], to: stranger)
        let old = try Self.variantFiles(of: "a.json", in: folder)
        try folder.write(TestImages.gradientJPEG(width: 310, height: 210, seed: 77), to: "a/photos/a.jpg")
        let report = try Self.build("a", in: folder)
        #expect(report.filesRemoved == 3)
        for file in old { #expect(!folder.exists(file), "\(file), listed by the previous manifest, is removed") }
        #expect(folder.exists(stranger), "a file no manifest of this pipeline listed is left alone")
    }

    @Test("variant files a killed build wrote before its manifest named them are deleted by the next build")
    func killedBuildsFiles() throws {
        let folder = try Self.twoPipelines()
        try Self.build("a", in: folder)
        // A build with another recipe, killed after writing a file and before its manifest:
        // the pending list it wrote first says the file is its own.
        let written = "ab/ab" + String(repeating: "1", count: 38) + "-full-87654321.jpg"
        try folder.write([0xFF, 0xD8, 0xFF, 0xD9], to: "out/" + written)
        try folder.write("ladder-pending 1\n\(written)\n", to: "a/.ladder/pending")
        let stranger = "cd/cd" + String(repeating: "2", count: 38) + "-full-87654321.jpg"
        try folder.write([0xFF, 0xD8, 0xFF, 0xD9], to: "out/" + stranger)
        let report = try Self.build("a", in: folder)
        #expect(report.filesRemoved == 1)
        #expect(!folder.exists("out/" + written), "the killed build's file is removed")
        #expect(folder.exists("out/" + stranger), "a file no build of this pipeline wrote stays")
        #expect(!folder.exists("a/.ladder/pending"), "and the list is done with")
    }

    @Test("names that differ only in Unicode normalization are two sources, each with its own picture")
    func unicodeNormalization() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let composed = "photos/caf\u{E9}.jpg"
        let decomposed = "photos/cafe\u{301}.jpg"
        #expect(Array(composed.utf8) != Array(decomposed.utf8) && composed == decomposed, "Swift says equal")
        let first = try TestImages.gradientJPEG(width: 300, height: 200, seed: 1)
        let second = try TestImages.gradientJPEG(width: 200, height: 300, seed: 2)
        try folder.write(first, to: composed)
        try folder.write(second, to: decomposed)
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        for round in 0..<2 {
            let report = try Pipelines.build(in: folder)
            #expect(report.sources == 2 && report.failed.isEmpty)
            #expect(report.built == (round == 0 ? 2 : 0))
            #expect(report.warnings.contains { $0.message.contains("Unicode normalization") }, "the warning stays")
            let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
            #expect(manifest.images.count == 2)
            let composedEntry = try #require(manifest.images[Checksum.hex(.sha1, of: first)])
            let decomposedEntry = try #require(manifest.images[Checksum.hex(.sha1, of: second)])
            #expect(composedEntry.sources.map { Array($0.utf8) } == [Array(composed.utf8)])
            #expect(decomposedEntry.sources.map { Array($0.utf8) } == [Array(decomposed.utf8)])
            #expect(composedEntry.width == 300 && decomposedEntry.width == 200)
        }
    }

    @Test("a failed source that is replaced shows up as stale in verify")
    func replacedFailureIsStale() throws {
        TestImages.start()
        for replacement in [Array("other notes".utf8), try TestImages.gradientJPEG(width: 300, height: 200)] {
            let folder = TemporaryDirectory()
            try folder.write(TestImages.gradientJPEG(width: 320, height: 200), to: "photos/good.jpg")
            try folder.write("just some notes", to: "photos/notes.jpg")
            try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
            try Pipelines.build(in: folder)
            let configuration = try Pipelines.configuration(in: folder)
            #expect(Verifier(configuration: configuration).run().isOK, "an unchanged failure is accounted for")
            try folder.write(replacement, to: "photos/notes.jpg")
            let problems = Verifier(configuration: configuration).run().problems
            #expect(problems.contains { $0.path == "photos/notes.jpg" && $0.kind.rawValue == "stale" }, "\(problems)")
        }
    }

    @Test("a failed source that is deleted, alone or while another source is added, shows up as gone in verify")
    func deletedFailureIsGone() throws {
        TestImages.start()
        for addsOne in [false, true] {
            let folder = TemporaryDirectory()
            try folder.write(TestImages.gradientJPEG(width: 320, height: 200), to: "photos/good.jpg")
            try folder.write("just some notes", to: "photos/notes.jpg")
            try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
            try Pipelines.build(in: folder)
            try FileManager.default.removeItem(atPath: folder.path("photos/notes.jpg"))
            if addsOne { try folder.write(TestImages.gradientJPEG(width: 300, height: 210), to: "photos/new.jpg") }
            let problems = Verifier(configuration: try Pipelines.configuration(in: folder)).run().problems
            let gone = problems.filter { $0.path == "photos/notes.jpg" && $0.message.contains("no longer exists") }
            #expect(gone.count == 1, "\(problems)")
            #expect(problems.count == (addsOne ? 2 : 1), "\(problems)")
        }
    }

    @Test("an unchanged failed source is not decoded again; new content, recipe or limits try it again")
    func failureRemembered() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 320, height: 200), to: "photos/good.jpg")
        let whole = try TestImages.gradientJPEG(width: 400, height: 300, seed: 5)
        try folder.write(Array(whole.prefix(whole.count / 2)), to: "photos/cut.jpg")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        func build() throws -> (BuildReport, Int) {
            let configuration = try Pipelines.configuration(in: folder)
            let workers = try LadderExecutable.workers(for: configuration)
            defer { workers.shutdown() }
            let report = try Builder(configuration: configuration, options: Builder.Options(jobs: 2), workers: workers)
                .run()
            return (report, workers.sourcesRequested)
        }
        let (first, firstRenders) = try build()
        #expect(firstRenders == 2 && first.failed.count == 1)
        let manifestBefore = try folder.read("build/variants/manifest.json")
        let (again, againRenders) = try build()
        #expect(againRenders == 0, "the failure is remembered")
        #expect(again.failed == first.failed, "and still reported, with its reason")
        #expect(try folder.read("build/variants/manifest.json") == manifestBefore)

        try Pipelines.write(#"{"sources": ["photos"], "limits": {"timeoutSeconds": 60}}"#, in: folder)
        #expect(try build().1 == 1, "other limits: tried again")
        try Pipelines.write(
            #"{"sources": ["photos"], "limits": {"timeoutSeconds": 60}, "variants": {"full": {"quality": 70}}}"#,
            in: folder)
        #expect(try build().1 == 2, "another recipe: tried again (and the good source remade)")
        try folder.write(Array(whole.prefix(whole.count / 3)), to: "photos/cut.jpg")
        #expect(try build().1 == 1, "other content: tried again")
    }

    @Test("temporary files a killed build left in .ladder/ are removed")
    func stateLeftovers() throws {
        let folder = try BuildTests.project(photos: 1)
        try Pipelines.build(in: folder)
        let leftover = ".ladder/" + Directory.temporaryPrefix + "4242-17-stat-cache"
        try folder.write([1, 2, 3], to: leftover)
        try Pipelines.build(in: folder)
        #expect(!folder.exists(leftover))
    }

    @Test("the output folder's lock is a flock on a regular file, which a second build respects")
    func regularFileLock() throws {
        let folder = try BuildTests.project(photos: 1)
        try Pipelines.build(in: folder)
        let lockPath = folder.path("build/variants/" + OutputOwnership.lockFileName)
        let descriptor = open(lockPath, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0, "the lock file exists")
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        #expect(fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG)
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        let configuration = try Pipelines.configuration(in: folder)
        let workers = try LadderExecutable.workers(for: configuration)
        defer { workers.shutdown() }
        let builder = Builder(
            configuration: configuration, options: Builder.Options(jobs: 1, waitForLock: false), workers: workers)
        #expect { try builder.run() } throws: { "\($0)".contains("locked") || "\($0)".contains("another") }
        flock(descriptor, LOCK_UN)
        #expect(throws: Never.self) { try builder.run() }
    }
}
