import Foundation
import LadderCore
import Testing

/// `ladder check`: what a designer is told about their files before a build.
@Suite("Preflight")
struct PreflightTests {
    /// Boxes small enough that a 600x400 picture fills them all.
    static let pipeline = """
        {"sources": ["photos"], "variants": {
          "small_thumb": {"maxWidth": 32, "maxHeight": 32, "quality": 80},
          "large_thumb": {"maxWidth": 100, "maxHeight": 100, "quality": 82},
          "full": {"maxWidth": 400, "maxHeight": 400, "quality": 85, "progressive": {"scans": 5}}}}
        """

    static func check(_ folder: TemporaryDirectory, paths: [String]? = nil) throws -> PreflightReport {
        try Pipelines.check(in: folder, paths: paths)
    }

    static func kinds(_ report: PreflightReport) -> [String: Set<Finding.Kind>] {
        Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, Set($0.findings.map(\.kind))) })
    }

    @Test("each kind of trouble is named on the file that has it, and sound files are not mentioned")
    func findings() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let sound = try TestImages.gradientJPEG(width: 600, height: 400)
        try folder.write(sound, to: "photos/sound.jpg")
        try folder.write(sound, to: "photos/copy/sound.jpg")
        try folder.write(TestImages.gradientJPEG(width: 200, height: 150, seed: 1), to: "photos/small.jpg")
        try folder.write(TestImages.gradientJPEG(width: 20, height: 15, seed: 2), to: "photos/tiny.jpg")
        try folder.write(TestImages.cameraJPEG(width: 600, height: 400), to: "photos/camera.jpg")
        try folder.write(TestImages.halfTransparentPNG(width: 600, height: 400), to: "photos/cutout.png")
        try folder.write(TestImages.cmykJPEG(width: 600, height: 400), to: "photos/print.jpg")
        try folder.write(TestImages.displayP3JPEG(width: 600, height: 400), to: "photos/phone.jpg")
        try folder.write(TestImages.animatedGIF(width: 600, height: 400), to: "photos/loop.gif")
        try folder.write(TestImages.quadrantFile(width: 600, height: 400, as: ".png"), to: "photos/really-a-png.jpg")
        let whole = try TestImages.gradientJPEG(width: 600, height: 400, seed: 3)
        try folder.write(Array(whole.prefix(whole.count / 2)), to: "photos/cut.jpg")
        try folder.write("meeting notes", to: "photos/notes.jpg")
        try Pipelines.write(Self.pipeline, in: folder)

        let report = try Self.check(folder)
        #expect(report.sources == 12)
        #expect(
            Self.kinds(report) == [
                "photos/sound.jpg": [.duplicate], "photos/copy/sound.jpg": [.duplicate],
                "photos/small.jpg": [.notUpscaled], "photos/tiny.jpg": [.tiny],
                "photos/camera.jpg": [.gps, .personalMetadata], "photos/cutout.png": [.alpha],
                "photos/print.jpg": [.cmyk], "photos/phone.jpg": [.wideGamut], "photos/loop.gif": [.animated],
                "photos/really-a-png.jpg": [.misnamed], "photos/cut.jpg": [.damaged],
                "photos/notes.jpg": [.notAnImage],
            ])
        #expect(report.errorCount == 2 && report.warningCount == 9 && report.infoCount == 2)
        let camera = try #require(report.files.first { $0.path == "photos/camera.jpg" })
        #expect(camera.findings.map(\.severity) == [.info, .info], "personal data changes nothing in the variants")
        let messages = report.files.flatMap(\.findings).map(\.message)
        #expect(!messages.contains { $0.contains("51.5000") }, "which fields, never their values")
        #expect(messages.contains { $0.contains("EXIF Artist") })
        #expect(messages.contains { $0.contains("200x150 is smaller than full (400x400)") })
        #expect(report.files.flatMap(\.findings).allSatisfy { !$0.fix.isEmpty })
    }

    @Test("metadata the pipeline keeps is not reported as stripped")
    func keptMetadata() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.cameraJPEG(width: 600, height: 400), to: "photos/camera.jpg")
        try Pipelines.write(
            String(Self.pipeline.dropLast()) + #", "metadata": {"keep": ["artist", "copyright"]}}"#, in: folder)
        #expect(Self.kinds(try Self.check(folder)) == ["photos/camera.jpg": [.gps]])
    }

    @Test("check writes nothing: no output folder, no manifest, no build state")
    func writesNothing() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 600, height: 400), to: "photos/a.jpg")
        try Pipelines.write(Self.pipeline, in: folder)
        let before = folder.files()
        _ = try Self.check(folder)
        #expect(folder.files() == before)
        #expect(!folder.exists("build") && !folder.exists(".ladder"))
    }

    @Test("files named on the command line are checked alone, and files outside the sources are flagged")
    func namedFiles() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 20, height: 15), to: "photos/tiny.jpg")
        try folder.write(TestImages.gradientJPEG(width: 600, height: 400), to: "photos/other.jpg")
        try folder.write(TestImages.gradientJPEG(width: 600, height: 400), to: "drafts/new.jpg")
        try Pipelines.write(Self.pipeline, in: folder)
        let tiny = folder.path("photos/tiny.jpg")
        let draft = folder.path("drafts/new.jpg")
        let report = try Self.check(folder, paths: [tiny, draft])
        #expect(report.sources == 2)
        #expect(Self.kinds(report) == [tiny: [.tiny], draft: [.outsideSources]])
    }
}
