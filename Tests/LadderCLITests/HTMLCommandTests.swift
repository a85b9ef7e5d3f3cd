import Foundation
import LadderCLI
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// `ladder html`: the static markup of a build's images, checked against the manifest the build
/// wrote. What a browser makes of that markup is checked in Chromium by clients/web/test.
@Suite("ladder html")
struct HTMLCommandTests {
    /// Sources whose names a page must escape.
    static let hostileNames = [#""><img src=x onerror=alert(1)>.jpg"#, "it's & <b>.jpg", "a,b c.jpg"]

    /// A built project: a 1200 x 900 picture, and small ones under hostile names.
    static func project() throws -> (TemporaryDirectory, Manifest) {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.gradientJPEG(width: 1200, height: 900, seed: 1), to: "photos/wide.jpg")
        for (seed, name) in hostileNames.enumerated() {
            try folder.write(TestImages.gradientJPEG(width: 200, height: 150, seed: 10 + seed), to: "photos/\(name)")
        }
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        return (folder, try Manifest(jsonData: Data(folder.read("build/variants/manifest.json"))))
    }

    static func sha1(_ manifest: Manifest, _ source: String) throws -> String {
        try #require(manifest.images.first { $0.value.sources.contains(source) }?.key)
    }

    /// Every attribute of the one tag `name` in `html`, unescaped; nil when the markup is not
    /// exactly such tags with quoted attributes, nothing else (what a browser would parse
    /// otherwise could differ).
    static func attributes(of name: String, in html: String) -> [[String: String]]? {
        let tag = try! Regex(#"<\#(name)((?: [a-z-]+="[^"<>]*")*)>"#)
        let attribute = try! Regex(#" ([a-z-]+)="([^"<>]*)""#)
        var found: [[String: String]] = []
        for match in html.matches(of: tag) {
            var values: [String: String] = [:]
            for pair in String(match.output[1].substring ?? "").matches(of: attribute) {
                values[String(pair.output[1].substring ?? "")] = unescape(String(pair.output[2].substring ?? ""))
            }
            found.append(values)
        }
        return found.isEmpty ? nil : found
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("an <img> lists every rung in srcset by width, the largest as src, with its size and the placeholder")
    func imgMarkup() throws {
        let (folder, manifest) = try Self.project()
        let result = runLadder([
            "html", "--config", folder.path("pipeline.json"), "--base", "https://cdn.example.com/photos", "--sizes",
            "(max-width: 600px) 100vw, 50vw", "--alt", "A wide gradient", "photos/wide.jpg",
        ])
        #expect(result.code == .success, "\(result.error)")
        let line = result.output.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"), "one image, one line")
        let img = try #require(Self.attributes(of: "img", in: line)?.first)
        let entry = try #require(manifest.images[try Self.sha1(manifest, "photos/wide.jpg")])
        let rungs = entry.variants.values.sorted { $0.width < $1.width }
        let expected = rungs.map { "https://cdn.example.com/photos/\($0.path) \($0.width)w" }.joined(separator: ", ")
        #expect(img["srcset"] == expected)
        #expect(img["src"] == "https://cdn.example.com/photos/" + rungs.last!.path)
        #expect(img["width"] == "\(rungs.last!.width)" && img["height"] == "\(rungs.last!.height)")
        #expect(img["sizes"] == "(max-width: 600px) 100vw, 50vw")
        #expect(img["alt"] == "A wide gradient" && img["loading"] == "lazy" && img["decoding"] == "async")
        let style = try #require(img["style"])
        let color = try #require(entry.averageColor)
        #expect(style.hasPrefix("background: \(color) url(\"data:image/png;base64,"))
    }

    @Test("the placeholder's PNG is the manifest's ThumbHash, as its decoder draws it")
    func placeholderPicture() throws {
        let (folder, manifest) = try Self.project()
        let result = runLadder(["html", "--config", folder.path("pipeline.json"), "--json", "photos/wide.jpg"])
        #expect(result.code == .success, "\(result.error)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let sha1 = try Self.sha1(manifest, "photos/wide.jpg")
        let image = try #require((document["images"] as? [String: Any])?[sha1] as? [String: Any])
        let dataURL = try #require((image["placeholder"] as? [String: Any])?["image"] as? String)
        let png = try #require(Data(base64Encoded: String(dataURL.dropFirst("data:image/png;base64,".count))))
        let decoded = try Image(decoding: [UInt8](png))
        let placeholder = try #require(manifest.images[sha1]?.placeholder)
        let hash = try #require(ThumbHash(base64: placeholder))
        let picture = try #require(hash.picture())
        #expect(decoded.width == picture.width && decoded.height == picture.height)
        for (x, y) in [(0, 0), (picture.width / 2, picture.height / 2), (picture.width - 1, picture.height - 1)] {
            let offset = (y * picture.width + x) * 4
            #expect(try decoded.pixel(x: x, y: y) == Array(picture.rgba[offset..<(offset + 3)]))
        }
        #expect(dataURL.count < 2_000, "a smooth 32-pixel picture, adaptively filtered, is about 1 KB")
        #expect((document["sources"] as? [String: String])?["photos/wide.jpg"] == sha1)
    }

    @Test("hostile source names, base, alt and class come out escaped: one <img> per image and nothing else")
    func escaping() throws {
        let (folder, manifest) = try Self.project()
        let alt = #""><script>alert(1)</script>"#
        let result = runLadder(
            [
                "html", "--config", folder.path("pipeline.json"), "--base", #"https://cdn.example.com/a b/"q"<x>,y/"#,
                "--alt", alt, "--class", #"" onload="alert(1)"#,
            ] + Self.hostileNames.map { "photos/" + $0 })
        #expect(result.code == .success, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == Self.hostileNames.count)
        for line in lines {
            // The whole line is one tag of quoted attributes: nothing broke out of a value.
            #expect(line.wholeMatch(of: try Regex(#"<img(?: [a-z-]+="[^"<>]*")*>"#)) != nil, "\(line)")
            let img = try #require(Self.attributes(of: "img", in: line)?.first)
            #expect(img["alt"] == alt)
            #expect(img["class"] == #"" onload="alert(1)"#)
            // 200 x 150 sources make large_thumb and full of one size: srcset names each width once.
            let widths = (img["srcset"] ?? "").split(separator: ", ").map { $0.split(separator: " ").last ?? "" }
            #expect(widths == ["160w", "200w"], "\(img["srcset"] ?? "")")
            for candidate in (img["srcset"] ?? "").split(separator: ", ") {
                let url = try #require(URL(string: String(candidate.split(separator: " ")[0])), "\(candidate)")
                #expect(url.host == "cdn.example.com" && url.path.hasPrefix("/a b/\"q\"<x>,y/"))
            }
        }
        let json = runLadder(["html", "--config", folder.path("pipeline.json"), "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let sources = try #require(document["sources"] as? [String: String])
        for name in Self.hostileNames {
            #expect(sources["photos/" + name] == (try Self.sha1(manifest, "photos/" + name)))
        }
    }

    @Test("format siblings make a <picture>: smallest format first, a rung without one offers its JPEG")
    func pictureMarkup() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        let sha1 = String(repeating: "ab", count: 20)
        func variant(_ name: String, _ width: Int, _ bytes: Int, _ formats: [String: Int]) -> Manifest.VariantEntry {
            Manifest.VariantEntry(
                path: "ab/\(name).jpg", width: width, height: width * 3 / 4, bytes: bytes,
                sha256: String(repeating: "0", count: 64), progressive: false, scans: 1, recipe: "r",
                formats: formats.isEmpty
                    ? nil
                    : Dictionary(
                        uniqueKeysWithValues: formats.map {
                            ($0.key, Manifest.FormatEntry(path: "ab/\(name).\($0.key)", bytes: $0.value, sha256: ""))
                        }))
        }
        let manifest = Manifest(
            generator: .init(ladder: "0", libvips: "0", libjpeg: "0"),
            images: [
                sha1: .init(
                    sources: ["photos/cat.jpg"], width: 2000, height: 1500,
                    variants: [
                        "small": variant("small", 160, 5_000, ["webp": 4_000, "avif": 3_000]),
                        "large": variant("large", 640, 40_000, ["webp": 30_000]),
                        // A sibling larger than its JPEG is not offered.
                        "full": variant("full", 2000, 300_000, ["webp": 200_000, "avif": 400_000]),
                    ])
            ])
        try folder.write([UInt8](manifest.jsonData()), to: "site/manifest.json")
        let result = runLadder(["html", "--manifest", folder.path("site/manifest.json"), "--placeholder", "none", sha1])
        #expect(result.code == .success, "\(result.error)")
        let line = result.output.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("<picture><source ") && line.hasSuffix("></picture>"))
        let sources = try #require(Self.attributes(of: "source", in: line))
        // webp weighs 4,000 + 30,000 + 200,000; avif 3,000 + 40,000 (the JPEG) + 300,000 (the JPEG).
        #expect(sources.map { $0["type"] } == ["image/webp", "image/avif"])
        #expect(sources[0]["srcset"] == "ab/small.webp 160w, ab/large.webp 640w, ab/full.webp 2000w")
        #expect(sources[1]["srcset"] == "ab/small.avif 160w, ab/large.jpg 640w, ab/full.jpg 2000w")
        let img = try #require(Self.attributes(of: "img", in: line)?.first)
        #expect(img["srcset"] == "ab/small.jpg 160w, ab/large.jpg 640w, ab/full.jpg 2000w")
        #expect(img["style"] == nil)
    }

    @Test("an image the manifest does not have is named on stderr, exit 1, and the others are printed")
    func missingImage() throws {
        let (folder, manifest) = try Self.project()
        let result = runLadder([
            "html", "--config", folder.path("pipeline.json"), "photos/none.jpg", "photos/wide.jpg",
            String(repeating: "0", count: 40),
        ])
        #expect(result.code == .failure)
        #expect(result.error.contains("'photos/none.jpg' is not in"))
        #expect(result.error.contains("'\(String(repeating: "0", count: 40))' is not in"))
        #expect(result.output.split(separator: "\n").count == 1)
        #expect(
            result.output.contains(
                try #require(manifest.images[try Self.sha1(manifest, "photos/wide.jpg")]?.variants["full"]?.path)))
    }

    @Test("a missing manifest is an I/O error, a broken one a data error, each naming the file")
    func unusableManifests() throws {
        let folder = TemporaryDirectory()
        let missing = runLadder(["html", "--manifest", folder.path("none/manifest.json")])
        #expect(missing.code == .ioError)
        #expect(missing.error.contains("none/manifest.json"))
        try folder.write("{\"version\": 1, \"images\": 3}", to: "manifest.json")
        let broken = runLadder(["html", "--manifest", folder.path("manifest.json")])
        #expect(broken.code == .invalidConfiguration)
        #expect(broken.error.contains("manifest.json") && broken.error.contains("not a usable manifest"))
        let both = runLadder(["html", "--manifest", "a.json", "--config", "pipeline.json"])
        #expect(both.code == .usage)
        let style = runLadder(["html", "--placeholder", "blurry"])
        #expect(style.code == .usage && style.error.contains("image, color or none"))
    }
}
