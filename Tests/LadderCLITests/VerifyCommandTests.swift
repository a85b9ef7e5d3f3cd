import Foundation
import LadderCLI
import LadderCore
import LadderImaging
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `ladder verify` and `ladder replay` as users and CI call them.
@Suite("verify and replay commands")
struct VerifyCommandTests {
    static func builtProject() throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<2 {
            try folder.write(TestImages.gradientJPEG(width: 500, height: 350, seed: index), to: "photos/p\(index).jpg")
        }
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        #expect(runLadder(["build", "--config", folder.path("pipeline.json"), "--quiet"]).code == .success)
        return folder
    }

    @Test("verify --replay prints the short table and exits 0 after a build")
    func table() throws {
        let folder = try Self.builtProject()
        let result = runLadder(["verify", "--config", folder.path("pipeline.json"), "--replay"])
        #expect(result.code == .success, "\(result.output)")
        for line in ["images     2", "variants   6", "problems   0", "first picture after", "first scan quality"] {
            #expect(result.output.contains(line), "\(line)")
        }
    }

    @Test("verify --json and --junit carry the same problem, and the exit code is 1")
    func jsonAndJUnit() throws {
        let folder = try Self.builtProject()
        try folder.write("stray", to: "build/variants/stray.bin")
        let junit = folder.path("verify.xml")
        let result = runLadder(["verify", "--config", folder.path("pipeline.json"), "--json", "--junit", junit])
        #expect(result.code == .failure)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect(problems.first?["path"] as? String == "build/variants/stray.bin")
        #expect(problems.first?["kind"] as? String == "orphan")
        #expect(problems.first?["message"] is String)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuites name=\"ladder verify\" tests=\"5\" failures=\"1\">"))
        #expect(xml.contains("name=\"photos/p0.jpg\"/>") && xml.contains("name=\"photos/p1.jpg\"/>"))
        #expect(xml.contains("build/variants/stray.bin: orphan"))
        _ = try XMLDocument(data: Data(xml.utf8))
    }

    @Test("ladder replay refuses a file declaring 20000x20000 before decoding it")
    func replayLimits() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.jpegDeclaring(width: 20000, height: 20000), to: "huge.jpg")
        let result = runLadder(["replay", folder.path("huge.jpg"), "--json"])
        #expect(result.code == .failure)
        #expect(result.output.contains("refused before decoding"), "\(result.output)")
    }

    @Test("verify --json --replay always has the replay key, an empty list when nothing is replayed")
    func emptyReplayKey() throws {
        let folder = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        #expect(runLadder(["build", "--config", folder.path("pipeline.json"), "--quiet"]).code == .success)
        let config = folder.path("pipeline.json")
        let replayed = runLadder(["verify", "--config", config, "--json", "--replay"])
        #expect(replayed.code == .success, "\(replayed.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(replayed.output.utf8)) as? [String: Any])
        #expect((object["replay"] as? [Any])?.isEmpty == true, "\(replayed.output)")
        let plain = try #require(
            try JSONSerialization.jsonObject(
                with: Data(runLadder(["verify", "--config", config, "--json"]).output.utf8)) as? [String: Any])
        #expect(plain["replay"] == nil, "without --replay there is no replay key")
    }

    @Test("verify --replay --json holds a replay object per image in the contract's shape")
    func replayJSON() throws {
        let folder = try Self.builtProject()
        let result = runLadder([
            "verify", "--config", folder.path("pipeline.json"), "--replay", "--json", "--profile", "3g",
        ])
        #expect(result.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let replays = try #require(object["replay"] as? [[String: Any]])
        #expect(replays.count == 2)
        for replay in replays {
            #expect(replay["path"] is String && replay["bytes"] is Int)
            let scans = try #require(replay["scans"] as? [[String: Any]])
            #expect(scans.count == 5)
            #expect(scans.map { $0["scan"] as? Int } == [1, 2, 3, 4, 5])
            #expect(scans.allSatisfy { $0["endOffset"] is Int && $0["psnr"] is Double && $0["ssim"] is Double })
            #expect((scans.last?["psnr"] as? Double ?? 0) >= 99)
            let timelines = try #require(replay["timelines"] as? [[String: Any]])
            #expect(timelines.first?["profile"] as? String == "3g")
        }
    }

    @Test("verify --frames writes the pictures and a page that opens from disk")
    func frames() throws {
        let folder = try Self.builtProject()
        let frames = folder.path("frames")
        let result = runLadder([
            "verify", "--config", folder.path("pipeline.json"), "--frames", frames, "--profile", "4g",
        ])
        #expect(result.code == .success)
        let html = try String(contentsOfFile: frames + "/index.html", encoding: .utf8)
        #expect(html.contains("<!doctype html>") && html.contains("photos/p0.jpg"))
        let sources = html.components(separatedBy: "src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(sources.count == 2 * (5 + 2), "five scans and two thumbnails per image")
        for source in sources {
            #expect(FileManager.default.fileExists(atPath: frames + "/" + source), "\(source)")
            #expect(!source.hasPrefix("/"), "relative links, so the page opens from disk")
        }
        #expect(html.contains("4g: 9 Mbit/s, 170 ms round trip"))
        // A thumbnail's picture is the variant file an app downloads, byte for byte.
        let variants = try FileManager.default.subpathsOfDirectory(atPath: folder.path("build/variants"))
            .filter { $0.hasSuffix(".jpg") }
            .map { try Data(contentsOf: URL(fileURLWithPath: folder.path("build/variants/" + $0))) }
        let thumbnails = sources.filter { $0.hasSuffix("_thumb.jpg") }
        #expect(thumbnails.count == 4)
        for thumbnail in thumbnails {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: frames + "/" + thumbnail))
            #expect(variants.contains(bytes), "\(thumbnail) is a copy of its variant")
        }
    }

    @Test("an unknown profile is a usage error")
    func unknownProfile() throws {
        let folder = try Self.builtProject()
        let result = runLadder(["verify", "--config", folder.path("pipeline.json"), "--profile", "5g"])
        #expect(result.code == .usage)
        #expect(result.error.contains("unknown network profile '5g'") && result.error.contains("3g"))
    }

    @Test("replay --json gives the contract's replay objects; a baseline file is one paint at the end")
    func replayCommand() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let baseline = try TestImages.gradientJPEG(width: 300, height: 200)
        try folder.write(baseline, to: "b.jpg")
        let result = runLadder(["replay", folder.path("b.jpg"), "--json"])
        #expect(result.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        let scans = try #require(files.first?["scans"] as? [[String: Any]])
        #expect(scans.count == 1)
        #expect(scans.first?["endOffset"] as? Int == baseline.count)
        #expect(runLadder(["replay"]).code == .usage)
        #expect(runLadder(["replay", folder.path("missing.jpg")]).code == .ioError)
    }

    @Test("replay exits 1 and names the problem for a truncated file")
    func replayTruncated() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let jpeg = try TestImages.gradient(width: 400, height: 300).jpegEncoded(
            .init(quality: 85, fullChroma: false, scans: ScanScript.recommendedColor.scans))
        try folder.write(Array(jpeg.prefix(jpeg.count / 2)), to: "cut.jpg")
        let result = runLadder(["replay", folder.path("cut.jpg")])
        #expect(result.code == .failure)
        #expect(result.output.contains("truncated"))
    }
}
