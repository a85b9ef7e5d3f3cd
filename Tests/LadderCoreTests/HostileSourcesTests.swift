import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Source folders anyone can drop files into: each hostile entry is refused with a reason or
/// passed over with a warning; none crashes, hangs or stops the batch; the good files are built.
@Suite("Hostile sources")
struct HostileSourcesTests {
    static func project(
        _ extra: (TemporaryDirectory) throws -> Void, pipeline: String = #"{"sources": ["photos"]}"#
    ) throws
        -> TemporaryDirectory
    {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 400, height: 300, seed: 1), to: "photos/good1.jpg")
        try folder.write(TestImages.gradientJPEG(width: 300, height: 400, seed: 2), to: "photos/nested/good2.jpg")
        try extra(folder)
        try Pipelines.write(pipeline, in: folder)
        return folder
    }

    @Test("zero bytes, text, SVG, bombs and truncation are refused with specific reasons, and the rest is built")
    func hostileFiles() throws {
        let folder = try Self.project { folder in
            try folder.write([], to: "photos/empty.jpg")
            try folder.write("just some notes", to: "photos/notes.jpg")
            try folder.write(
                #"<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>"#,
                to: "photos/vector.jpg")
            try folder.write(TestImages.pngHeaderOnly(width: 30_000, height: 30_000), to: "photos/bomb.png")
            try folder.write(TestImages.scanBombJPEG(scans: 4000), to: "photos/scans.jpg")
            let whole = try TestImages.gradientJPEG(width: 500, height: 400, seed: 3)
            try folder.write(Array(whole.prefix(whole.count / 2)), to: "photos/truncated.jpg")
        }
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 2)
        let reasons = Dictionary(uniqueKeysWithValues: report.failed.map { ($0.source, $0.reason) })
        #expect(reasons["photos/empty.jpg"]?.contains("an empty file") == true)
        #expect(reasons["photos/notes.jpg"]?.contains("the content is text") == true)
        #expect(reasons["photos/vector.jpg"]?.contains("an SVG document") == true)
        #expect(
            reasons["photos/bomb.png"]?.contains("limits.maxSide") == true
                || reasons["photos/bomb.png"]?.contains("limits.maxPixels") == true)
        #expect(reasons["photos/scans.jpg"]?.contains("more than 100 scans") == true)
        #expect(reasons["photos/scans.jpg"]?.contains("refused before decoding") == true)
        #expect(reasons["photos/truncated.jpg"]?.lowercased().contains("premature end") == true)
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        #expect(manifest.failures.count == 6 && manifest.images.count == 2)
        let verified = Verifier(configuration: try Pipelines.configuration(in: folder)).run()
        #expect(verified.isOK, "failures listed in the manifest are accounted for: \(verified.problems)")
    }

    @Test("a FIFO and links to /etc/passwd and /dev/zero are passed over with a warning, never read")
    func specialFilesAndLinks() throws {
        let folder = try Self.project { folder in
            #expect(mkfifo(folder.path("photos/pipe.jpg"), 0o644) == 0)
            try FileManager.default.createSymbolicLink(
                atPath: folder.path("photos/passwd.jpg"), withDestinationPath: "/etc/passwd")
            try FileManager.default.createSymbolicLink(
                atPath: folder.path("photos/zero.jpg"), withDestinationPath: "/dev/zero")
        }
        // Were the FIFO opened or /dev/zero read, the build would never end: that it ends, with
        // each named as passed over, is the check.
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 2 && report.failed.isEmpty)
        let warned = Dictionary(uniqueKeysWithValues: report.warnings.map { ($0.path, $0.message) })
        #expect(warned["photos/pipe.jpg"]?.contains("not a regular file") == true)
        #expect(warned["photos/passwd.jpg"]?.contains("symbolic link") == true)
        #expect(warned["photos/zero.jpg"]?.contains("symbolic link") == true)
    }

    @Test("with followSymlinks, links inside the source folders are followed, links out of them and loops are not")
    func followingLinks() throws {
        let folder = try Self.project(
            { folder in
                try FileManager.default.createSymbolicLink(
                    atPath: folder.path("photos/alias.jpg"), withDestinationPath: folder.path("photos/good1.jpg"))
                try FileManager.default.createSymbolicLink(
                    atPath: folder.path("photos/loop"), withDestinationPath: folder.path("photos"))
                try FileManager.default.createSymbolicLink(
                    atPath: folder.path("photos/passwd.jpg"), withDestinationPath: "/etc/passwd")
                try folder.write(TestImages.gradientJPEG(width: 200, height: 200, seed: 9), to: "elsewhere/outside.jpg")
                try FileManager.default.createSymbolicLink(
                    atPath: folder.path("photos/outside.jpg"), withDestinationPath: folder.path("elsewhere/outside.jpg")
                )
            }, pipeline: #"{"sources": ["photos"], "followSymlinks": true}"#)
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 2, "alias.jpg has good1.jpg's bytes and shares its entry")
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        #expect(manifest.images.values.contains { $0.sources == ["photos/alias.jpg", "photos/good1.jpg"] })
        let warned = Set(report.warnings.map(\.path))
        #expect(warned.isSuperset(of: ["photos/loop", "photos/passwd.jpg", "photos/outside.jpg"]))
    }

    @Test("names that differ only by case or Unicode normalization are reported, and both are built")
    func nameTwins() throws {
        let folder = try Self.project { folder in
            try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 4), to: "photos/Logo.jpg")
            try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 5), to: "photos/logo.jpg")
            try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 6), to: "photos/caf\u{E9}.jpg")
            try folder.write(TestImages.gradientJPEG(width: 100, height: 100, seed: 7), to: "photos/cafe\u{301}.jpg")
        }
        let report = try Pipelines.build(in: folder)
        #expect(report.sources == 6 && report.built == 6)
        let twins = report.warnings.filter { $0.message.contains("twin") }
        #expect(twins.count == 2)
    }

    @Test("the walk lists each source once, by its path's bytes, even where folders overlap or names are twins")
    func walkOrder() throws {
        let names = [
            "a/x.jpg", "a.b.jpg", "a-c.jpg", "a/b/y.jpg", "caf\u{E9}.jpg", "cafe\u{301}.jpg", "Z.jpg", "z.jpg",
        ]
        let folder = try Self.project(
            { folder in
                for name in names { try folder.write([0xFF, 0xD8], to: "photos/" + name) }
            }, pipeline: #"{"sources": ["photos", "photos/a", "photos"]}"#)
        let walked = try SourceWalker(configuration: try Pipelines.configuration(in: folder)).walk().files.map(\.path)
        // The oracle: the paths' UTF-8 bytes, sorted as byte arrays (not a Set of strings, which
        // would take the two cafés for one).
        let expected = (["good1.jpg", "nested/good2.jpg"] + names).map { Array(("photos/" + $0).utf8) }
            .sorted { $0.lexicographicallyPrecedes($1) }
        #expect(walked.map { Array($0.utf8) } == expected)
    }

    @Test("an extension that lies about the content is reported; the content decides")
    func lyingExtension() throws {
        let folder = try Self.project { folder in
            try folder.write(TestImages.halfTransparentPNG(), to: "photos/really-a-png.jpg")
        }
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 3 && report.failed.isEmpty)
        let warning = try #require(report.warnings.first { $0.path == "photos/really-a-png.jpg" })
        #expect(warning.message.contains("named like JPEG but the content is PNG"))
    }

    @Test("a link planted in the output folder cannot send a write elsewhere")
    func plantedOutputLink() throws {
        let folder = try Self.project { _ in }
        try Pipelines.build(in: folder)
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        let subfolder = String(try #require(manifest.images.values.first?.variants["full"]?.path).prefix(2))
        // Replace one of ladder's folders with a link to a folder outside, then force a rebuild.
        try FileManager.default.removeItem(atPath: folder.path("build/variants/" + subfolder))
        try FileManager.default.createDirectory(atPath: folder.path("outside"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("build/variants/" + subfolder), withDestinationPath: folder.path("outside"))
        #expect { try Pipelines.build(in: folder) } throws: { "\($0)".contains("symbolic link") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("outside")).isEmpty)
        #expect(
            try Manifest(jsonData: Data(folder.read("build/variants/manifest.json"))) == manifest,
            "the manifest is untouched")
    }

    @Test("limits and decoding settings are read from pipeline.json with pointed errors")
    func configuration() throws {
        let folder = try Self.project(
            { _ in },
            pipeline: """
                {"sources": ["photos"], "limits": {"maxPixels": 1000, "timeoutSeconds": 2.5},
                 "decoding": {"formats": ["jpeg", "png"], "failOn": "error"}, "followSymlinks": true}
                """)
        let configuration = try Pipelines.configuration(in: folder)
        #expect(configuration.limits.maxPixels == 1000 && configuration.limits.timeoutSeconds == 2.5)
        #expect(configuration.limits.formats == [.jpeg, .png] && configuration.limits.failOn == .error)
        #expect(configuration.followSymlinks)
        let report = try Pipelines.build(in: folder)
        #expect(report.failed.count == 2 && report.failed.allSatisfy { $0.reason.contains("limits.maxPixels") })
        try Pipelines.write(#"{"sources": ["photos"], "decoding": {"formats": ["bmp"]}}"#, in: folder)
        #expect { try Pipelines.configuration(in: folder) } throws: { "\($0)".contains("$.decoding.formats[0]") }
        try Pipelines.write(#"{"sources": ["photos"], "limits": {"maxPixel": 5}}"#, in: folder)
        #expect { try Pipelines.configuration(in: folder) } throws: { "\($0)".contains("did you mean \"maxPixels\"") }
    }
}
