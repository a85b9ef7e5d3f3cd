import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// The no-op build from the build record (`.ladder/build-record`): what it skips, and that
/// whatever changed still leads to the full build.
@Suite("No-op build")
struct NoOpBuildTests {
    /// A built project whose sources are old enough for the record to trust them, built until
    /// the record is current (a build that finds its own manifest written in the tick its
    /// record was written in does the full build and records again).
    static func settledProject(photos: Int = 3) throws -> TemporaryDirectory {
        let folder = try BuildTests.project(photos: photos)
        try settle(folder, photos: photos)
        return folder
    }

    /// Ages the sources `photos/p0.jpg` … of `folder`'s project and builds it until its record
    /// is current (see `settledProject`).
    static func settle(_ folder: TemporaryDirectory, photos: Int) throws {
        let anHourAgo = Date().addingTimeInterval(-3600)
        for index in 0..<photos {
            try FileManager.default.setAttributes(
                [.modificationDate: anHourAgo], ofItemAtPath: folder.path("photos/p\(index).jpg"))
        }
        // Setting the time set the change time to now; the record trusts no source changed
        // within StatCache.racyWindow of the walk.
        Thread.sleep(forTimeInterval: 2.1)
        try Pipelines.build(in: folder)
        try Pipelines.build(in: folder)
    }

    /// Every file under `build/` (the manifest, the index, the variants) with its bytes.
    static func outputs(_ folder: TemporaryDirectory) throws -> [String: [UInt8]] {
        var bytes: [String: [UInt8]] = [:]
        for path in folder.files(under: "build") { bytes[path] = try folder.read("build/" + path) }
        return bytes
    }

    /// The manifest's images as Foundation's JSON reader sees them, by SHA1.
    static func images(_ folder: TemporaryDirectory) throws -> [String: NSDictionary] {
        let json = try JSONSerialization.jsonObject(with: Data(folder.read("build/variants/manifest.json")))
        let images = try #require((json as? [String: Any])?["images"] as? [String: NSDictionary])
        return images
    }

    @Test("a no-op build answers from the build record and leaves every output byte-identical")
    func noOpFromRecord() throws {
        let folder = try Self.settledProject()
        let before = try Self.outputs(folder)
        let times = folder.modificationTimes(under: "build")
        let report = try Pipelines.build(in: folder)
        #expect(report.unchanged, "decided from the record, without the manifest")
        #expect(report.sources == 3 && report.skipped == 3 && report.built == 0 && report.hashed == 0)
        #expect(!report.manifestWritten && report.filesWritten == 0 && report.filesRemoved == 0)
        #expect(try Self.outputs(folder) == before)
        #expect(folder.modificationTimes(under: "build") == times)
    }

    @Test("the record gives each source's identity as stat(2) gives it, a time before 1970 too")
    func recordedIdentities() throws {
        let folder = try BuildTests.project(photos: 3)
        // 1969-12-31 23:43:20.25: a negative time, with nanoseconds.
        var times = [timespec(tv_sec: -1_000, tv_nsec: 250_000_000), timespec(tv_sec: -1_000, tv_nsec: 250_000_000)]
        #expect(utimensat(AT_FDCWD, folder.path("photos/p1.jpg"), &times, 0) == 0)
        try Pipelines.build(in: folder)
        let lines = String(decoding: try folder.read(".ladder/build-record"), as: UTF8.self)
            .split(separator: "\n").filter { $0.hasPrefix("s\t") }
        // The oracle: stat(2) and Swift's own formatting of its numbers.
        var expected: [String] = []
        for path in ["photos/p0.jpg", "photos/p1.jpg", "photos/p2.jpg"] {
            var info = stat()
            #expect(stat(folder.path(path), &info) == 0)
            let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            let changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            expected.append("s\t\(info.st_dev)\t\(info.st_ino)\t\(info.st_size)\t\(modified)\t\(changed)\tu\t\(path)")
        }
        #expect(lines.map(String.init).sorted() == expected.sorted())
        #expect(lines.contains { $0.contains("\t-999750000000\t") }, "the time before 1970")
    }

    @Test("a one-change rebuild rewrites exactly that image's entry and index; the next build is a no-op again")
    func oneChange() throws {
        let folder = try Self.settledProject()
        let before = try Self.images(folder)
        let old = Checksum.hex(.sha1, of: try folder.read("photos/p1.jpg"))
        let changed = try TestImages.gradientJPEG(width: 500, height: 300, seed: 9)
        try folder.write(changed, to: "photos/p1.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(!report.unchanged && report.built == 1 && report.skipped == 2 && report.hashed == 1)
        let after = try Self.images(folder)
        let new = Checksum.hex(.sha1, of: changed)
        #expect(Set(after.keys) == Set(before.keys).subtracting([old]).union([new]))
        for (sha1, entry) in before where sha1 != old { #expect(after[sha1] == entry, "\(sha1) is untouched") }
        #expect((after[new]?["sources"] as? [String]) == ["photos/p1.jpg"])
        // Only the prefix files of the image that left and the one that came are made again, and
        // the index is what writing it whole gives.
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        for (path, data) in ManifestIndex.files(for: manifest) {
            #expect(try folder.read("build/variants/" + path) == [UInt8](data), "\(path) as a whole index has it")
        }
        // The changed source is too recent for the record to trust until it ages.
        let anHourAgo = Date().addingTimeInterval(-3600)
        try FileManager.default.setAttributes(
            [.modificationDate: anHourAgo], ofItemAtPath: folder.path("photos/p1.jpg"))
        Thread.sleep(forTimeInterval: 2.1)
        try Pipelines.build(in: folder)
        #expect(try Pipelines.build(in: folder).unchanged)
    }

    @Test("a build after a few sources changed writes what a fresh full build writes, byte for byte")
    func changesWriteWhatAFullBuildWrites() throws {
        let folder = try Self.settledProject(photos: 4)
        // One source changed, one removed, one added, and one added with an unchanged one's bytes.
        try folder.write(try TestImages.gradientJPEG(width: 500, height: 300, seed: 9), to: "photos/p1.jpg")
        try FileManager.default.removeItem(atPath: folder.path("photos/p2.jpg"))
        try folder.write(try TestImages.gradientJPEG(width: 320, height: 200, seed: 11), to: "photos/new.jpg")
        try folder.write(try folder.read("photos/p3.jpg"), to: "photos/copy.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.fromChanges, "made from what changed")
        #expect(report.sources == 5 && report.built == 2 && report.skipped == 2 && report.hashed == 3)
        #expect(report.manifestWritten && report.filesWritten == 6 && report.filesRemoved == 6)
        let written = try Self.outputs(folder)
        let snapshot = try folder.read(".ladder/manifest-snapshot")

        // The changed sources, aged: the next build finds their bytes as recorded and writes
        // nothing but its record; the one after it is a no-op.
        let anHourAgo = Date().addingTimeInterval(-3600)
        for path in ["photos/p1.jpg", "photos/new.jpg", "photos/copy.jpg"] {
            try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: folder.path(path))
        }
        Thread.sleep(forTimeInterval: 2.1)
        let again = try Pipelines.build(in: folder)
        #expect(again.fromChanges && again.hashed == 3 && again.built == 0 && !again.manifestWritten)
        #expect(try Pipelines.build(in: folder).unchanged)
        #expect(try Self.outputs(folder) == written)

        // A fresh full build of the same sources writes the same bytes.
        try FileManager.default.removeItem(atPath: folder.path("build"))
        try FileManager.default.removeItem(atPath: folder.path(".ladder"))
        let full = try Pipelines.build(in: folder)
        #expect(!full.fromChanges && full.built == 4)
        let fresh = try Self.outputs(folder)
        #expect(fresh.keys.sorted() == written.keys.sorted())
        for (path, bytes) in fresh {
            #expect(written[path].map { $0 == bytes } == true, "\(path) as the full build writes it")
        }
        #expect(try folder.read(".ladder/manifest-snapshot") == snapshot, "the snapshot as the full build writes it")
    }

    @Test(
        "a build after a few changes in a catalogue whose manifest and snapshot are written in many pieces writes what a fresh full build writes"
    )
    func changesInALargerCatalogue() throws {
        // 1,600 tiny sources: the manifest (about 2.9 MB) and the snapshot (about 1.4 MB) are
        // spliced into their files over several of their megabyte buffers.
        TestImages.start()
        let folder = TemporaryDirectory()
        let count = 1_600
        for index in 0..<count {
            try folder.write(
                TestImages.gradientJPEG(width: 24 + index % 40, height: 18, seed: index), to: "photos/p\(index).jpg")
        }
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Self.settle(folder, photos: count)
        #expect(try folder.read(".ladder/manifest-snapshot").count > 1 << 20, "a snapshot of several buffers")

        try folder.write(try TestImages.gradientJPEG(width: 30, height: 20, seed: 90_001), to: "photos/p7.jpg")
        try FileManager.default.removeItem(atPath: folder.path("photos/p800.jpg"))
        try folder.write(try TestImages.gradientJPEG(width: 28, height: 21, seed: 90_002), to: "photos/new.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.fromChanges && report.manifestWritten && report.built == 2)
        let written = try Self.outputs(folder)
        let snapshot = try folder.read(".ladder/manifest-snapshot")
        let state = try Self.stateLines(folder)

        try FileManager.default.removeItem(atPath: folder.path("build"))
        try FileManager.default.removeItem(atPath: folder.path(".ladder"))
        let full = try Pipelines.build(in: folder)
        #expect(!full.fromChanges && full.sources == count && full.failed.isEmpty)
        let fresh = try Self.outputs(folder)
        #expect(fresh.keys.sorted() == written.keys.sorted())
        let differing = fresh.keys.filter { fresh[$0] != written[$0] }.sorted()
        #expect(differing.isEmpty, "as the full build writes them: \(differing.prefix(5))")
        #expect(try folder.read(".ladder/manifest-snapshot") == snapshot, "the snapshot as the full build writes it")
        // The stat cache and the build record, but for their times and the files' identities.
        let freshState = try Self.stateLines(folder)
        #expect(state.statCache.count == count && state.record.count > count * 2, "\(state.record.count) record lines")
        #expect(state.statCache == freshState.statCache, "the stat cache as the full build writes it")
        #expect(state.record == freshState.record, "the record's sources and variants as the full build writes them")
    }

    /// The stat cache's lines after its header, and the build record's after its opening lines.
    static func stateLines(_ folder: TemporaryDirectory) throws -> (statCache: [Substring], record: [Substring]) {
        func lines(_ name: String) throws -> [Substring] {
            String(decoding: try folder.read(".ladder/" + name), as: UTF8.self).split(separator: "\n")
        }
        return (Array(try lines("stat-cache").dropFirst()), Array(try lines("build-record").dropFirst(6)))
    }

    @Test(
        "a snapshot cut short or deleted since the record sends a build of a few changes to the full build",
        arguments: ["cut short", "deleted"])
    func changedSnapshot(damage: String) throws {
        let folder = try Self.settledProject()
        let snapshot = try folder.read(".ladder/manifest-snapshot")
        if damage == "deleted" {
            try FileManager.default.removeItem(atPath: folder.path(".ladder/manifest-snapshot"))
        } else {
            try folder.write(Array(snapshot.prefix(snapshot.count / 2)), to: ".ladder/manifest-snapshot")
        }
        try folder.write(try TestImages.gradientJPEG(width: 500, height: 300, seed: 9), to: "photos/p1.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(!report.fromChanges && report.built == 1 && report.manifestWritten)
        let written = try folder.read(".ladder/manifest-snapshot")

        // What a fresh full build of the same sources writes.
        try FileManager.default.removeItem(atPath: folder.path("build"))
        try FileManager.default.removeItem(atPath: folder.path(".ladder"))
        try Pipelines.build(in: folder)
        #expect(try folder.read(".ladder/manifest-snapshot") == written, "the snapshot written again, whole")
    }

    @Test("whatever changed since the record leads to the full build, which puts back what is missing")
    func changesLeadToTheFullBuild() throws {
        let folder = try Self.settledProject()
        let manifest = try folder.read("build/variants/manifest.json")
        let index = try folder.read("build/variants/index/00.json")

        // A variant file deleted: made again.
        let variant = try #require(folder.files(under: "build/variants").first { $0.hasSuffix(".jpg") })
        try FileManager.default.removeItem(atPath: folder.path("build/variants/" + variant))
        var report = try Pipelines.build(in: folder)
        #expect(!report.unchanged && report.filesWritten == 1 && folder.exists("build/variants/" + variant))
        #expect(try folder.read("build/variants/manifest.json") == manifest)

        // An index file deleted: written again.
        try Pipelines.build(in: folder)
        try FileManager.default.removeItem(atPath: folder.path("build/variants/index/00.json"))
        report = try Pipelines.build(in: folder)
        #expect(!report.unchanged)
        #expect(try folder.read("build/variants/index/00.json") == index)

        // The manifest edited: the build puts back what it lacks.
        try Pipelines.build(in: folder)
        try folder.write("{}", to: "build/variants/manifest.json")
        report = try Pipelines.build(in: folder)
        #expect(!report.unchanged && report.manifestWritten)
        #expect(try folder.read("build/variants/manifest.json") == manifest)

        // A recipe changed: its variants are made again.
        try Pipelines.write(
            #"{"sources": ["photos"], "variants": {"full": {}, "small_thumb": {}, "large_thumb": {"quality": 70}}}"#,
            in: folder)
        report = try Pipelines.build(in: folder)
        #expect(!report.unchanged && report.filesWritten == 3)

        // A source removed: its entry and files go.
        try FileManager.default.removeItem(atPath: folder.path("photos/p2.jpg"))
        report = try Pipelines.build(in: folder)
        #expect(!report.unchanged && report.sources == 2 && report.filesRemoved == 3)
    }

    @Test("a damaged build record costs a full build, never a wrong answer")
    func damagedRecord() throws {
        let folder = try Self.settledProject()
        let record = try folder.read(".ladder/build-record")
        let manifest = try folder.read("build/variants/manifest.json")
        for damage in [
            Array(record.prefix(record.count / 2)),
            record.map { $0 == UInt8(ascii: "u") ? UInt8(ascii: "x") : $0 },
            Array("ladder-build-record 0\n".utf8),
        ] {
            try folder.write(damage, to: ".ladder/build-record")
            let report = try Pipelines.build(in: folder)
            #expect(!report.unchanged && report.built == 0 && report.skipped == 3 && !report.manifestWritten)
            #expect(try folder.read("build/variants/manifest.json") == manifest)
        }
    }
}
