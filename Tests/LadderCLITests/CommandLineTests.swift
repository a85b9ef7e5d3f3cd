import Foundation
import LadderCLI
import LadderCore
import LadderTestSupport
import Testing

/// `Ladder.run(arguments:)` in this process: what a user types and what they get back.
@Suite("Command line")
struct CommandLineTests {
    static func run(_ arguments: [String]) -> (code: ExitCode, output: String, error: String) {
        let recording = RecordingConsole()
        let code = Ladder.run(arguments: ["ladder"] + arguments, console: recording.console)
        return (code, recording.output, recording.error)
    }

    @Test("--help lists the commands and exits 0")
    func help() {
        let result = Self.run(["--help"])
        #expect(result.code == .success)
        #expect(result.output.contains("build"))
    }

    @Test("build --help lists every flag with its default, and the exit codes")
    func buildHelp() {
        let result = Self.run(["build", "--help"])
        #expect(result.code == .success)
        for flag in ["--config PATH", "--jobs N", "--json", "--no-wait", "--quiet", "--verbose"] {
            #expect(result.output.contains(flag), "\(flag)")
        }
        #expect(result.output.contains("(default: pipeline.json)"))
        for code in ["0", "1", "64", "65", "74", "75"] { #expect(result.output.contains("\n  \(code) ")) }
    }

    @Test("--version names ladder and the image libraries")
    func version() {
        let result = Self.run(["--version"])
        #expect(result.code == .success)
        for name in ["ladder 0.1.0", "libvips 8.", "libjpeg-turbo 2.", "libexif 0."] {
            #expect(result.output.contains(name), "\(name)")
        }
    }

    @Test(
        "usage errors exit 64 and say what is wrong and where to look",
        arguments: [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["build", "--colour"], "unknown option '--colour'"),
            (["build", "--jobs"], "needs a value"),
            (["build", "--jobs", "0"], "from 1 to 1024"),
            (["build", "--quiet", "--verbose"], "cannot be used together"),
            (["build", "extra"], "unexpected argument"),
        ])
    func usageErrors(_ arguments: [String], _ message: String) {
        let result = Self.run(arguments)
        #expect(result.code == .usage)
        #expect(result.error.contains(message))
        #expect(result.error.contains("--help"))
        #expect(result.output.isEmpty)
    }

    @Test("an invalid pipeline.json exits 65 naming the file and the JSON path")
    func invalidConfiguration() throws {
        let folder = TemporaryDirectory()
        try folder.write(#"{"sources": ["photos"], "variants": {"full": {"quality": 500}}}"#, to: "pipeline.json")
        try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
        let result = Self.run(["build", "--config", folder.path("pipeline.json")])
        #expect(result.code == .invalidConfiguration)
        #expect(result.error.contains("pipeline.json: $.variants.full.quality"))
    }

    @Test("build --json prints one JSON object on standard output, and exits 1 when a source failed")
    func buildJSON() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "photos/good.jpg")
        try folder.write("not an image", to: "photos/bad.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = Self.run(["build", "--config", folder.path("pipeline.json"), "--json"])
        #expect(result.code == .failure)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["built"] as? Int == 1)
        #expect(object["skipped"] as? Int == 0)
        #expect(object["seconds"] is Double || object["seconds"] is Int)
        let failed = try #require(object["failed"] as? [[String: String]])
        #expect(failed.count == 1)
        #expect(failed.first?["source"] == "photos/bad.jpg")
        #expect(failed.first?["reason"]?.isEmpty == false)
        #expect(result.output.filter { $0 == "\n" }.count == 1, "exactly one line on standard output")
    }

    @Test("the summary says where the variants and the manifest are")
    func summary() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "photos/good.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = Self.run(["build", "--config", folder.path("pipeline.json")])
        #expect(result.code == .success)
        #expect(result.output.contains("1 built"))
        #expect(result.output.contains("variants: "))
        #expect(result.output.contains("build/variants/manifest.json"))
    }
}
