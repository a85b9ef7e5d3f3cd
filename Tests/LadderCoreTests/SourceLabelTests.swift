import Foundation
import LadderCore
import LadderManifest
import Testing

/// How the manifest names sources in folders given as `..` or as absolute paths.
@Suite("Source folder names in the manifest")
struct SourceLabelTests {
    /// A project in `root/project` whose sources lie beside it, in `root/shared/photos`.
    static func project(source: (TemporaryDirectory) -> String) throws -> (TemporaryDirectory, String) {
        TestImages.start()
        let root = TemporaryDirectory()
        try root.write(TestImages.gradientJPEG(width: 300, height: 200), to: "shared/photos/a.jpg")
        try root.write("not an image", to: "shared/photos/junk.jpg")
        let folder = source(root)
        try root.write(#"{"sources": ["\#(folder)"], "output": "build/variants"}"#, to: "project/pipeline.json")
        return (root, root.path("project"))
    }

    static func build(_ projectPath: String) throws -> Manifest {
        let configuration = try PipelineConfiguration.load(from: projectPath + "/pipeline.json")
        try Pipelines.build(configuration, options: Builder.Options(jobs: 1))
        return try Manifest(
            jsonData: Data(contentsOf: URL(fileURLWithPath: projectPath + "/build/variants/manifest.json")))
    }

    @Test(
        "a source folder outside the project, as .. or absolute, is named by its own name in sources and failures",
        arguments: ["relative", "absolute"])
    func outside(_ form: String) throws {
        let (root, project) = try Self.project { root in
            form == "relative" ? "../shared/photos" : root.path("shared/photos")
        }
        let manifest = try Self.build(project)
        let sources = manifest.images.values.flatMap(\.sources)
        #expect(sources == ["photos/a.jpg"])
        #expect(Array(manifest.failures.keys) == ["photos/junk.jpg"])
        let configuration = try PipelineConfiguration.load(from: project + "/pipeline.json")
        let report = Verifier(configuration: configuration).run()
        #expect(report.problems.isEmpty, "verify finds the sources under the same names: \(report.problems)")
        withExtendedLifetime(root) {}
    }

    @Test("an absolute path inside the project is named relative to it, as if written relative")
    func absoluteInside() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "art/2024/a.jpg")
        try folder.write(#"{"sources": ["\#(folder.path("art/2024"))"]}"#, to: "pipeline.json")
        let manifest = try Self.build(folder.path)
        #expect(manifest.images.values.flatMap(\.sources) == ["art/2024/a.jpg"])
    }

    @Test("two source folders that would share a name in the manifest are refused at their JSON path")
    func clash() throws {
        let root = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.path("a/photos"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.path("b/photos"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.path("project"), withIntermediateDirectories: true)
        let json = #"{"sources": ["../a/photos", "../b/photos"]}"#
        #expect {
            try PipelineConfiguration.parse(Data(json.utf8), file: "pipeline.json", baseDirectory: root.path("project"))
        } throws: { error in
            (error as? ConfigurationError)?.jsonPath == "$.sources[1]"
        }
    }
}
