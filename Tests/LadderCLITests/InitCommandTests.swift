import Foundation
import LadderCLI
import LadderCore
import Testing

/// `ladder init` in a designer's project folder.
@Suite("ladder init")
struct InitCommandTests {
    static func initialize(in folder: TemporaryDirectory) -> (code: ExitCode, output: String, error: String) {
        runLadder(["init", "--config", folder.path("pipeline.json")])
    }

    @Test("it finds the image folders, skips dependencies and hidden folders, and the result builds as it is")
    func writesAWorkingPipeline() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let image = try TestImages.gradientJPEG(width: 64, height: 48)
        try folder.write(image, to: "assets/photos/2024/a.jpg")
        try folder.write(TestImages.gradientJPEG(width: 64, height: 48, seed: 1), to: "assets/photos/b.jpg")
        try folder.write(TestImages.quadrantFile(width: 64, height: 48, as: ".png"), to: "press/kit/logo.png")
        try folder.write(image, to: "node_modules/some-package/icon.png")
        try folder.write(image, to: ".cache/thumb.jpg")
        try folder.write("# readme", to: "docs/README.md")
        let result = Self.initialize(in: folder)
        #expect(result.code == .success, "\(result.error)")
        #expect(result.output.contains("assets/photos  (2 images)"))
        let configuration = try Pipelines.configuration(in: folder)
        #expect(configuration.sources == ["assets/photos", "press/kit"])
        #expect(configuration.variants.map(\.name).sorted() == ["full", "large_thumb", "small_thumb"])
        #expect(try folder.read("pipeline.json").starts(with: Array("{\n  \"$comment\"".utf8)), "it explains itself")
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 3 && report.sources == 3, "only the images of the folders found")

    }

    @Test("an existing pipeline.json is never overwritten")
    func refusesToOverwrite() throws {
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 64, height: 48), to: "photos/a.jpg")
        try folder.write(#"{"sources": ["mine"]}"#, to: "pipeline.json")
        let result = Self.initialize(in: folder)
        #expect(result.code == .failure)
        #expect(result.error.contains("already exists"))
        #expect(try folder.read("pipeline.json") == Array(#"{"sources": ["mine"]}"#.utf8))
    }

    @Test("with no images it says where to put them and writes nothing")
    func noImages() throws {
        let folder = TemporaryDirectory()
        try folder.write("hello", to: "notes.txt")
        let result = Self.initialize(in: folder)
        #expect(result.code == .failure)
        #expect(result.error.contains("no images"))
        #expect(!folder.exists("pipeline.json"))
    }

    @Test("images in the folder itself make it the source, and the output folder is not walked")
    func imagesAtTheTop() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 64, height: 48), to: "a.jpg")
        try folder.write(TestImages.gradientJPEG(width: 64, height: 48, seed: 1), to: "more/b.jpg")
        #expect(Self.initialize(in: folder).code == .success)
        #expect(try Pipelines.configuration(in: folder).sources == ["."])
        #expect(try Pipelines.build(in: folder).built == 2)
        #expect(try Pipelines.build(in: folder).sources == 2, "build/variants is not a source")
    }
}
