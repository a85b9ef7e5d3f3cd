import Foundation
import LadderCLI
import LadderImaging
import LadderManifest
import Testing

/// `ladder build --report DIR`: the page a designer opens and CI uploads.
@Suite("Build report", .serialized)
struct ReportTests {
    /// A project with three photos, one with a GPS position, and a broken file, built with a
    /// report; built once for the whole suite.
    static let project: (folder: TemporaryDirectory, code: ExitCode, output: String) = {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<2 {
            try! folder.write(
                TestImages.gradientJPEG(width: 900, height: 600, seed: index), to: "photos/beach \(index).jpg")
        }
        try! folder.write(TestImages.cameraJPEG(width: 900, height: 600), to: "photos/trip/camera.jpg")
        try! folder.write("not an image", to: "photos/notes.jpg")
        try! folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let result = runLadder(["build", "--config", folder.path("pipeline.json"), "--report", folder.path("report")])
        return (folder, result.code, result.output)

    }()

    static func page() throws -> String {
        String(decoding: try project.folder.read("report/index.html"), as: UTF8.self)
    }

    @Test("the page names every image with its variants, and the failure with its reason")
    func contents() throws {
        let (folder, code, output) = Self.project
        #expect(code == .failure, "a source failed")
        #expect(output.contains("report: "))
        let page = try Self.page()
        for name in ["photos/beach 0.jpg", "photos/beach 1.jpg", "photos/trip/camera.jpg"] {
            #expect(page.contains(">\(name)</h3>"), "\(name)")
        }
        #expect(page.contains("photos/notes.jpg</td><td>not an image ladder reads"))
        #expect(page.contains("GPS position removed"))
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        for (sha1, entry) in manifest.images {
            #expect(folder.exists("report/images/\(sha1).jpg"), "thumbnail of \(entry.sources[0])")
            #expect(page.contains("id=\"image-\(sha1)\""))
            for variant in entry.variants.values { #expect(page.contains("\(variant.width)×\(variant.height)")) }
        }
        let filmstrips = String(decoding: try folder.read("report/replay/index.html"), as: UTF8.self)
        #expect(manifest.images.keys.allSatisfy { filmstrips.contains("id=\"image-\($0)\"") }, "every image replayed")
    }

    @Test("every picture and link of the page points at a file that exists")
    func links() throws {
        let folder = Self.project.folder
        let page = try Self.page()
        let pattern = try NSRegularExpression(pattern: #"(?:src|href)="([^"]+)""#)
        let targets = pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)).map {
            String(page[Range($0.range(at: 1), in: page)!])
        }
        #expect(targets.count > 10)
        for target in targets {
            let path = target.split(separator: "#", omittingEmptySubsequences: false)[0]
                .replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding!
            let resolved = URL(fileURLWithPath: folder.path("report")).appendingPathComponent(path).standardized.path
            #expect(FileManager.default.fileExists(atPath: resolved), "\(target)")
        }
    }

    @Test(
        "the page renders in headless Chromium: every picture loads, no script error, a picture of it is taken",
        .enabled(if: ExternalTools.runs(with: HeadlessBrowser.path), Comment(rawValue: HeadlessBrowser.absenceNote)))
    func browser() throws {
        _ = try ExternalTools.require(HeadlessBrowser.path, "Chromium (scripts/bootstrap --browser)")
        let folder = Self.project.folder
        let screenshot = folder.path("report-screenshot.png")
        let rendering = try HeadlessBrowser.render(folder.path("report/index.html"), screenshot: screenshot)
        #expect(rendering.dom.contains("data-images=\"3\""), "the page's own check ran and counted the pictures")
        #expect(rendering.dom.contains("data-broken-images=\"0\""))
        #expect(!rendering.console.contains { $0.contains("Uncaught") || $0.contains("Error") }, "\(rendering.console)")
        let png = try folder.read("report-screenshot.png")
        let header = try ImageHeader(reading: png)
        #expect(header.format == "png" && header.storedSize == PixelSize(width: 1400, height: 2000))
        let replay = try HeadlessBrowser.render(folder.path("report/replay/index.html"))
        #expect(!replay.console.contains { $0.contains("Uncaught") }, "\(replay.console)")
    }
}
