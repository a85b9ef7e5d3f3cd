import Foundation
import LadderImaging
import LadderManifest
import Testing

/// `ladder-serve-check`, run as a user runs it against a served ladder.
@Suite("ladder-serve-check", .serialized)
struct ServeCheckTests {
    /// The built executable, next to the test binary (`swift build` builds it), or nil.
    static let executable = BuiltExecutable.path(named: "ladder-serve-check")

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(
        "--frames DIR writes every picture drawn under the names the contract gives, each the one djpeg makes",
        .enabled(
            if: (executable != nil && ExternalTools.djpeg != nil) || isCI, "ladder-serve-check or djpeg is missing"))
    func frames() throws {
        let executable = try #require(Self.executable, "ladder-serve-check is built by swift build")
        try #require(ExternalTools.djpeg != nil, "djpeg (libjpeg-turbo-progs) is installed by scripts/bootstrap")
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        let folder = TemporaryDirectory("ladder-frames")
        let result = try ChildProcess.run(
            executable, [ladder.server.baseURL.absoluteString, sha1, "--size", "4000", "--frames", folder.path])
        #expect(result.status == 0, "\(result.error)")
        let output = String(decoding: result.output, as: UTF8.self)
        #expect(output.contains("full (jpeg): 1600x1200, sha256 ok, final"), "\(output)")

        // The rungs download at once and a smaller one that arrives after a larger one is never
        // drawn (the ladder does not go back down), so the thumbnails' files depend on which
        // response came first; the placeholder, the full rung and each of its scans never do.
        let ends = try #require(ladder.manifest.images[sha1]?.variants["full"]?.scanEnds)
        let required = Set(["placeholder", "full"] + (1...ends.count).map { "full-scan\($0)" })
        let allowed = required.union(["small_thumb", "large_thumb"])
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(names.isSuperset(of: required.map { "\(sha1)-\($0).png" }), "\(names.sorted())")
        #expect(names.isSubset(of: allowed.map { "\(sha1)-\($0).png" }), "\(names.sorted())")
        for rung in ["small_thumb", "large_thumb"] where names.contains("\(sha1)-\(rung).png") {
            #expect(output.contains("\(rung) (jpeg)"), "a rung's file is written only for a rung drawn: \(output)")
        }

        let file = [UInt8](try ladder.fileBytes(sha1, "full"))
        for (index, end) in ends.enumerated() {
            let png = try Image(decoding: [UInt8](Data(contentsOf: folder.url("\(sha1)-full-scan\(index + 1).png"))))
            let drawn = try png.decodedPixels()
            let prefix = end == file.count ? file : Array(file.prefix(end)) + [0xFF, 0xD9]
            let oracle = try #require(try ExternalTools.djpegRGB(prefix, scale: "8/8"))
            #expect(drawn.width == oracle.width && drawn.height == oracle.height && drawn.components == 3)
            let largest = zip(drawn.samples, oracle.samples).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            #expect(largest <= 1, "scan \(index + 1) differs from djpeg by up to \(largest)")
        }
    }

    @Test(
        "a usage error exits 64 with the usage; --help exits 0",
        .enabled(if: executable != nil || isCI, "ladder-serve-check is not built next to the tests"))
    func usage() throws {
        let executable = try #require(Self.executable, "ladder-serve-check is built by swift build")
        let wrong = try ChildProcess.run(executable, ["http://127.0.0.1:1/", "--fit", "stretch"])
        #expect(wrong.status == 64)
        #expect(wrong.error.contains("--fit is fit or fill") && wrong.error.contains("usage: ladder-serve-check"))
        let help = try ChildProcess.run(executable, ["--help"])
        #expect(help.status == 0)
        #expect(String(decoding: help.output, as: UTF8.self).contains("--frames DIR"))
    }
}
