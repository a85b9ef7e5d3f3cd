import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// Whole builds in temporary folders, in this process.
@Suite("Build")
struct BuildTests {
    /// A project with `count` different photos under photos/ and the default pipeline.
    static func project(
        photos count: Int = 3, pipeline: String = #"{"sources": ["photos"]}"#
    ) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<count {
            try folder.write(
                TestImages.gradientJPEG(width: 400 + index * 10, height: 300, seed: index), to: "photos/p\(index).jpg")
        }
        try Pipelines.write(pipeline, in: folder)
        return folder
    }

    static func manifest(
        in folder: TemporaryDirectory, at path: String = "build/variants/manifest.json"
    ) throws -> Manifest {
        try Manifest(jsonData: Data(folder.read(path)))
    }

    @Test(
        "a build writes every variant and a manifest that describes them exactly",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func firstBuild() throws {
        let folder = try Self.project()
        let report = try Pipelines.build(in: folder)
        #expect(report.sources == 3 && report.built == 3 && report.failed.isEmpty && report.filesWritten == 9)
        let manifest = try Self.manifest(in: folder)
        #expect(manifest.images.count == 3)
        for (sha1, entry) in manifest.images {
            let source = try folder.read(try #require(entry.sources.first))
            #expect(Checksum.hex(.sha1, of: source) == sha1, "keyed by the SHA1 of the source's bytes")
            #expect(entry.variants.keys.sorted() == ["full", "large_thumb", "small_thumb"])
            for (name, variant) in entry.variants {
                #expect(variant.path.hasPrefix("\(sha1.prefix(2))/\(sha1)-\(name)-"), "content-addressed path")
                let bytes = try folder.read("build/variants/" + variant.path)
                #expect(bytes.count == variant.bytes)
                #expect(Checksum.hex(.sha256, of: bytes) == variant.sha256)
                // libjpeg-turbo's own reading of the file (djpeg), independent of ladder's
                // segment walker: frame size, scans and their script.
                let read = try ExternalTools.djpegStructure(bytes)
                #expect(read.width == variant.width && read.height == variant.height)
                #expect(read.scans.count == variant.scans)
                #expect(read.isProgressive == variant.progressive && variant.progressive == (name == "full"))
                #expect(variant.script == (variant.progressive ? read.script : nil))
            }
        }
    }

    @Test("a second build with nothing changed rewrites nothing")
    func noOpRebuild() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder)
        let before = folder.modificationTimes(under: "build")
        let manifestBefore = try folder.read("build/variants/manifest.json")
        Thread.sleep(forTimeInterval: 0.05)
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 0 && report.skipped == 3 && report.filesWritten == 0 && !report.manifestWritten)
        #expect(folder.modificationTimes(under: "build") == before)
        #expect(try folder.read("build/variants/manifest.json") == manifestBefore)
    }

    @Test("two builds of the same inputs give byte-identical manifests and variants")
    func deterministic() throws {
        let first = try Self.project()
        let second = try Self.project()
        try Pipelines.build(in: first, jobs: 1)
        try Pipelines.build(in: second, jobs: 3)
        #expect(try first.read("build/variants/manifest.json") == second.read("build/variants/manifest.json"))
        let files = first.files(under: "build/variants")
        #expect(files == second.files(under: "build/variants"))
        for file in files {
            #expect(try first.read("build/variants/" + file) == second.read("build/variants/" + file), "\(file)")
        }
    }

    @Test("identical bytes under two names share one entry listing both")
    func duplicates() throws {
        let folder = try Self.project(photos: 1)
        try folder.write(folder.read("photos/p0.jpg"), to: "photos/copy/same.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.sources == 2 && report.built == 1)
        let manifest = try Self.manifest(in: folder)
        #expect(manifest.images.count == 1)
        #expect(manifest.images.values.first?.sources == ["photos/copy/same.jpg", "photos/p0.jpg"])
    }

    @Test("changing one source rebuilds only that source")
    func changedSource() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder)
        let before = folder.modificationTimes(under: "build/variants").filter { $0.key.hasSuffix(".jpg") }
        try folder.write(TestImages.gradientJPEG(width: 500, height: 300, seed: 9), to: "photos/p1.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 1 && report.skipped == 2)
        #expect(report.filesWritten == 3 && report.filesRemoved == 3, "the old variants of p1 are removed")
        let after = folder.modificationTimes(under: "build/variants")
        let untouched = before.filter { after[$0.key] == $0.value }
        #expect(untouched.count == 6 + 0, "the other two sources' six files are untouched")
    }

    @Test("changing one variant's recipe remakes only that variant")
    func changedRecipe() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder)
        let before = try Self.manifest(in: folder)
        try Pipelines.write(
            #"{"sources": ["photos"], "variants": {"full": {}, "small_thumb": {}, "large_thumb": {"quality": 70}}}"#,
            in: folder)
        let report = try Pipelines.build(in: folder)
        #expect(report.filesWritten == 3 && report.filesRemoved == 3)
        let after = try Self.manifest(in: folder)
        for (sha1, entry) in after.images {
            #expect(entry.variants["full"] == before.images[sha1]?.variants["full"])
            #expect(entry.variants["small_thumb"] == before.images[sha1]?.variants["small_thumb"])
            #expect(entry.variants["large_thumb"]?.recipe != before.images[sha1]?.variants["large_thumb"]?.recipe)
        }
    }

    @Test("a source that disappears leaves the manifest and its variants are deleted; other files stay")
    func deletedSource() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder)
        try folder.write("keep me", to: "build/variants/notes.txt")
        let gone = Checksum.hex(.sha1, of: try folder.read("photos/p2.jpg"))
        try FileManager.default.removeItem(atPath: folder.path("photos/p2.jpg"))
        let report = try Pipelines.build(in: folder)
        #expect(report.filesRemoved == 3)
        #expect(try Self.manifest(in: folder).images[gone] == nil)
        #expect(!folder.files(under: "build/variants").contains { $0.contains(gone) })
        #expect(folder.exists("build/variants/notes.txt"), "files ladder did not write are never deleted")
    }

    @Test("unchanged sources are not read again; one rewritten with the same size and time is")
    func sameSizeSameTime() throws {
        let folder = try Self.project(photos: 2)
        // Old enough for the stat cache to trust them.
        let anHourAgo = Date().addingTimeInterval(-3600)
        for name in ["p0", "p1"] {
            try FileManager.default.setAttributes(
                [.modificationDate: anHourAgo], ofItemAtPath: folder.path("photos/\(name).jpg"))
        }
        // Setting the time changed the files' change time to now; entries that recent are not
        // trusted (a write in the same clock tick would go unseen), so let them age.
        Thread.sleep(forTimeInterval: 2.1)
        #expect(try Pipelines.build(in: folder).hashed == 2)
        #expect(try Pipelines.build(in: folder).hashed == 0, "unchanged files are known from the stat cache")

        let original = try folder.read("photos/p0.jpg")
        var changed = original
        changed[changed.count - 10] ^= 0x01  // a byte inside the entropy-coded data
        try folder.write(changed, to: "photos/p0.jpg")
        try FileManager.default.setAttributes(
            [.modificationDate: anHourAgo], ofItemAtPath: folder.path("photos/p0.jpg"))
        #expect(try Pipelines.build(in: folder).hashed == 1, "the change time gives the rewrite away")
        let manifest = try Self.manifest(in: folder)
        #expect(manifest.images[Checksum.hex(.sha1, of: changed)] != nil || !manifest.failures.isEmpty)
        #expect(manifest.images[Checksum.hex(.sha1, of: original)] == nil, "the old content is never served")
    }

    @Test("one bad file is listed with its reason and does not stop the others")
    func badFile() throws {
        let folder = try Self.project(photos: 2)
        try folder.write("this is not an image", to: "photos/notes.jpg")
        let truncated = try TestImages.gradientJPEG(width: 300, height: 300, seed: 5)
        try folder.write(Array(truncated.prefix(truncated.count / 2)), to: "photos/cut.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 2)
        #expect(report.failed.map(\.source) == ["photos/cut.jpg", "photos/notes.jpg"])
        let manifest = try Self.manifest(in: folder)
        #expect(manifest.images.count == 2)
        #expect(manifest.failures.keys.sorted() == ["photos/cut.jpg", "photos/notes.jpg"])
        #expect(manifest.failures.values.allSatisfy { !$0.isEmpty && !$0.contains("\n") })
    }

    @Test("leftovers of a killed run are cleaned up and the next run completes")
    func killedRunLeftovers() throws {
        let folder = try Self.project()
        try Pipelines.build(in: folder)
        let manifest = try Self.manifest(in: folder)
        let someVariant = try #require(manifest.images.values.first?.variants["full"]?.path)
        let subfolder = String(someVariant.prefix(2))
        try folder.write([1, 2, 3], to: "build/variants/\(subfolder)/.ladder-tmp-999-1-x.jpg")
        try folder.write([1, 2, 3], to: "build/variants/.ladder-tmp-999-2-manifest.json")
        let orphan = "ab/" + String(repeating: "ab", count: 20) + "-full-0123abcd.jpg"
        try folder.write([1, 2, 3], to: "build/variants/" + orphan)
        try FileManager.default.removeItem(atPath: folder.path("build/variants/" + someVariant))
        let report = try Pipelines.build(in: folder)
        #expect(report.filesWritten == 1, "the deleted variant is made again")
        let files = folder.files(under: "build/variants")
        #expect(!files.contains { $0.contains(".ladder-tmp-") })
        #expect(files.contains(orphan), "a variant-named file no manifest of this pipeline listed is not its to delete")
        #expect(try Self.manifest(in: folder) == manifest)
    }

    @Test("an unreadable previous manifest is reported and everything is built again")
    func damagedManifest() throws {
        let folder = try Self.project(photos: 1)
        try Pipelines.build(in: folder)
        try folder.write("{ broken", to: "build/variants/manifest.json")
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 1)
        #expect(try Self.manifest(in: folder).images.count == 1)
    }

    @Test("a manifest edited since the last build is read again, and the build puts back what it lacks")
    func editedManifest() throws {
        let folder = try Self.project(photos: 2)
        try Pipelines.build(in: folder)
        var edited = try Self.manifest(in: folder)
        let removed = try #require(edited.images.keys.sorted().first)
        edited.images[removed] = nil
        try folder.write(Array(edited.jsonData()), to: "build/variants/manifest.json")
        let report = try Pipelines.build(in: folder)
        #expect(report.manifestWritten)
        #expect(try Self.manifest(in: folder).images[removed] != nil)
    }

    @Test("a damaged build state costs time, never a wrong manifest")
    func damagedSnapshot() throws {
        let folder = try Self.project(photos: 2)
        // Sources the build record never vouches for (modified after any walk), so that every
        // build below is a full one, which reads the state, however slow the machine.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path("photos")) {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: folder.path("photos/" + name))
        }
        try Pipelines.build(in: folder)
        let manifest = try folder.read("build/variants/manifest.json")
        let snapshot = try folder.read(".ladder/manifest-snapshot")
        for damage in [
            Array(snapshot.prefix(snapshot.count / 2)),
            snapshot.map { $0 == UInt8(ascii: "\t") ? UInt8(ascii: " ") : $0 },
            Array("ladder-manifest-snapshot 1 \(String(repeating: "0", count: 40))\n".utf8),
        ] {
            try folder.write(damage, to: ".ladder/manifest-snapshot")
            let report = try Pipelines.build(in: folder)
            #expect(report.built == 0 && report.failed.isEmpty && !report.manifestWritten)
            #expect(try folder.read("build/variants/manifest.json") == manifest)
            #expect(try folder.read(".ladder/manifest-snapshot") == snapshot, "the state is written again")
        }
    }

    @Test("a no-op build reuses its state as is, even with tabs, newlines and backslashes in names")
    func snapshotRoundTrip() throws {
        let folder = try Self.project(photos: 1)
        try folder.write(TestImages.gradientJPEG(width: 64, height: 48, seed: 9), to: "photos/tab\there\\and\nline.jpg")
        try folder.write("not an image", to: "photos/bad\\\tname.jpg")
        try Pipelines.build(in: folder)
        let state = folder.path(".ladder/manifest-snapshot")
        let before = try #require(Directory.status(atPath: state))
        let report = try Pipelines.build(in: folder)
        #expect(report.skipped == 2 && report.failed.count == 1 && !report.manifestWritten)
        #expect(Directory.status(atPath: state) == before, "read back equal to the manifest, so not rewritten")
    }

    @Test("a manifest above the output folder holds paths prefixed with the folder's name")

    func manifestAboveOutput() throws {
        let folder = try Self.project(
            photos: 1, pipeline: #"{"sources": ["photos"], "output": "site/img", "manifest": "site/manifest.json"}"#)
        try Pipelines.build(in: folder)
        let manifest = try Self.manifest(in: folder, at: "site/manifest.json")
        for variant in try #require(manifest.images.values.first).variants.values {
            #expect(variant.path.hasPrefix("img/"))
            #expect(folder.exists("site/" + variant.path))
        }
        #expect(try Pipelines.build(in: folder).built == 0, "and the next build finds them")
    }

    @Test("a source over limits.maxFileBytes fails with its size and the limit; the others are built")
    func sourceOverTheByteLimit() throws {
        let big = try TestImages.gradientJPEG(width: 1600, height: 1200, quality: 98)
        let limit = big.count - 1
        let folder = try Self.project(
            photos: 2, pipeline: #"{"sources": ["photos"], "limits": {"maxFileBytes": \#(limit)}}"#)
        try #require(try folder.read("photos/p0.jpg").count < limit && folder.read("photos/p1.jpg").count < limit)
        try folder.write(big, to: "photos/big.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 2)
        let failure = try #require(report.failed.first)
        #expect(failure.source.hasSuffix("photos/big.jpg"))
        #expect(failure.reason.contains("the file has \(big.count) bytes, over the limit of \(limit)"))
    }

    @Test("a source rewritten after it was hashed is reported as changed, and made by the next build")
    func sourceChangedAfterHashing() throws {
        let folder = try Self.project(photos: 1)
        try Pipelines.build(in: folder)
        try folder.write(TestImages.gradientJPEG(width: 500, height: 300, seed: 7), to: "photos/new.jpg")
        // The unchanged photo is settled by the plan, before any render starts: rewrite the
        // new one then, after its SHA1 was taken.
        let rewrite = RewriteOnFirstEvent {
            try? folder.write(TestImages.gradientJPEG(width: 520, height: 300, seed: 8), to: "photos/new.jpg")
        }
        let report = try Pipelines.build(
            Pipelines.configuration(in: folder), options: Builder.Options(jobs: 1), observer: rewrite)
        #expect(report.built == 0)
        let failure = try #require(report.failed.first)
        #expect(failure.source.hasSuffix("photos/new.jpg"))
        #expect(failure.reason.contains("changed while ladder was reading it"))

        let next = try Pipelines.build(in: folder)
        #expect(next.built == 1 && next.failed.isEmpty, "the change is not remembered as a failure")
        let manifest = try Self.manifest(in: folder)
        let rewritten = try folder.read("photos/new.jpg")
        #expect(manifest.images[Checksum.hex(.sha1, of: rewritten)]?.sources == ["photos/new.jpg"])
    }
}

/// Runs an action when the build reports its first settled source.
private final class RewriteOnFirstEvent: BuildObserving, @unchecked Sendable {
    // @unchecked: `done` is only touched behind `lock`.
    private let lock = NSLock()
    private var done = false
    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    func buildStarted(total: Int) {}
    func warning(_ message: String) {}
    func sourceFinished(_ path: String, outcome: SourceOutcome) {
        let first = lock.withLock {
            defer { done = true }
            return !done
        }
        if first { action() }
    }
}
