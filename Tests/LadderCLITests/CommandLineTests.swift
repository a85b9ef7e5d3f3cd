import Foundation
import LadderCLI
import LadderCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Ladder.run(arguments:)` in this process: what a user types and what they get back.
@Suite("Command line")
struct CommandLineTests {
    @Test("a result that cannot be written to standard output exits 74 and says why")
    func lostOutput() {
        let errors = RecordingConsole()
        let console = Console(
            errorIsTerminal: false, usesColor: false, writingOutput: { _ in ENOSPC },
            error: { errors.console.writeDiagnostic($0) })
        let code = Ladder.run(arguments: ["ladder", "--version"], console: console, rendering: .tests)
        #expect(code == .ioError)
        #expect(errors.error.contains("cannot write the results to standard output: No space left on device"))
    }

    @Test("a build with nothing to make starts no render worker")
    func noOpBuildStartsNoWorker() throws {
        let real = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "photos/a.jpg")
        // The stat cache distrusts a file changed within 2 s of the scan that recorded it.
        Thread.sleep(forTimeInterval: 2.2)
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        // Workers started from this script leave a line in `starts` each.
        let starts = folder.path("starts")
        try folder.write("#!/bin/sh\necho started >> '\(starts)'\nexec '\(real)' \"$@\"\n", to: "worker")
        #expect(chmod(folder.path("worker"), 0o755) == 0)
        let rendering = Rendering(executable: folder.path("worker"), workers: 1)
        func build() -> ExitCode {
            Ladder.run(
                arguments: ["ladder", "build", "--quiet", "--config", folder.path("pipeline.json")],
                console: RecordingConsole().console, rendering: rendering)
        }
        #expect(build() == .success)
        #expect(folder.exists("starts"), "the first build rendered in a worker")
        try FileManager.default.removeItem(atPath: starts)
        #expect(build() == .success)
        #expect(!folder.exists("starts"), "the no-op build started a worker")
    }

    @Test("--help lists the commands and exits 0")
    func help() {
        let result = runLadder(["--help"])
        #expect(result.code == .success)
        #expect(result.output.contains("build"))
    }

    @Test("build --help lists every flag with its default, and the exit codes")
    func buildHelp() {
        let result = runLadder(["build", "--help"])
        #expect(result.code == .success)
        for flag in ["--config PATH", "--jobs N", "--json", "--no-wait", "--quiet", "--verbose"] {
            #expect(result.output.contains(flag), "\(flag)")
        }
        #expect(result.output.contains("(default: pipeline.json)"))
        for code in ["0", "1", "64", "65", "74", "75"] { #expect(result.output.contains("\n  \(code) ")) }
    }

    @Test(
        "every command's --help lists its options, their defaults and its exit codes",
        arguments: ["init", "check", "build", "verify", "replay", "merge"])
    func commandHelp(_ command: String) {
        let result = runLadder([command, "--help"])
        #expect(result.code == .success)
        #expect(result.output.hasPrefix("USAGE: ladder \(command) "))
        #expect(result.output.contains("OPTIONS:\n") && result.output.contains("--quiet, -q"))
        #expect(result.output.contains("EXIT CODES:\n  0    "))
        #expect(runLadder(["--help"]).output.contains("\n  \(command) "), "listed in ladder --help")
    }

    @Test("color only on a terminal, and never when NO_COLOR is set")
    func color() {
        let terminal: (Int32) -> Bool = { _ in true }
        let piped: (Int32) -> Bool = { _ in false }
        let plain = Console.standard(environment: [:], isTerminal: terminal)
        #expect(plain.usesColor && plain.outputUsesColor)
        let noColor = Console.standard(environment: ["NO_COLOR": "1"], isTerminal: terminal)
        #expect(!noColor.usesColor && !noColor.outputUsesColor)
        #expect(Console.standard(environment: ["NO_COLOR": ""], isTerminal: terminal).usesColor, "empty means unset")
        let ci = Console.standard(environment: [:], isTerminal: piped)
        #expect(!ci.usesColor && !ci.outputUsesColor && !ci.errorIsTerminal)
    }

    @Test("a pipeline.json that is not JSON is refused with the line and column")
    func brokenJSON() throws {
        let folder = TemporaryDirectory()
        try folder.write("{\n  \"sources\": [\"photos\"],\n  // photos\n}", to: "pipeline.json")
        let result = runLadder(["build", "--config", folder.path("pipeline.json")])
        #expect(result.code == .invalidConfiguration)
        #expect(result.error.contains("line 3, column 3"))
        #expect(result.error.contains("$comment"), "says how to write a note instead")
    }

    @Test("--version names ladder and the image libraries")
    func version() {
        let result = runLadder(["--version"])
        #expect(result.code == .success)
        for name in ["ladder 0.1.0", "libvips 8.", "libjpeg-turbo 2.", "libexif libexif."] {
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
            (["build", "--shard", "3/2"], "from 1 to 2"),
            (["build", "--shard", "auto/2"], "JOB_COMPLETION_INDEX"),
            (["merge", "--colour"], "unknown option '--colour'"),
        ])
    func usageErrors(_ arguments: [String], _ message: String) {
        let result = runLadder(arguments)
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
        let result = runLadder(["build", "--config", folder.path("pipeline.json")])
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
        let result = runLadder(["build", "--config", folder.path("pipeline.json"), "--json"])
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
        let result = runLadder(["build", "--config", folder.path("pipeline.json")])
        #expect(result.code == .success)
        #expect(result.output.contains("1 built"))
        #expect(result.output.contains("variants: "))
        #expect(result.output.contains("build/variants/manifest.json"))
    }

    @Test("a sharded build from a Kubernetes index, merged, gives the manifest; merge --json reports it")
    func shardAndMerge() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<4 {
            try folder.write(
                TestImages.gradientJPEG(width: 120 + index, height: 80, seed: index), to: "photos/\(index).jpg")
        }
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let config = folder.path("pipeline.json")
        for index in 0..<2 {
            let result = runLadder(
                ["build", "--config", config, "--shard", "auto/2", "--json"],
                environment: ["JOB_COMPLETION_INDEX": "\(index)"])
            #expect(result.code == .success)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            #expect((object["shard"] as? [String: Int]) == ["index": index + 1, "count": 2])
            #expect((object["manifest"] as? String)?.hasSuffix("manifest.shard-\(index + 1)-of-2.json") == true)
        }
        let merge = runLadder(["merge", "--config", config, "--json"])
        #expect(merge.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(merge.output.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == true)
        #expect(object["images"] as? Int == 4 && object["shards"] as? Int == 2)
        #expect(folder.exists("build/variants/manifest.json"))
        #expect(!folder.files(under: "build/variants").contains { $0.contains(".shard-") }, "partials deleted")
    }

    @Test("merge with a shard missing exits 1, names the file and what to run")
    func mergeMissingShard() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 120, height: 80), to: "photos/a.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let config = folder.path("pipeline.json")
        #expect(runLadder(["build", "--config", config, "--shard", "2/2", "--quiet"]).code == .success)
        let result = runLadder(["merge", "--config", config])
        #expect(result.code == .failure)
        #expect(
            result.error.contains("manifest.shard-1-of-2.json: shard 1 of 2 is missing; run ladder build --shard 1/2"))
        #expect(!folder.exists("build/variants/manifest.json"))
    }
}
