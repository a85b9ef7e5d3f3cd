import Foundation
import LadderManifest
import Testing

/// What an app gets from a manifest: the URLs of a photo's variants, smallest first.
@Suite("Variant resolver")
struct VariantResolverTests {
    static let sha1 = "3fa4c2d1e0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5"
    static let base = URL(string: "https://cdn.example.com/site/img/")!

    /// A manifest as ladder writes it, with the variants in no particular order.
    static let json = """
        {
          "failures" : { "photos/broken.jpg" : "decode: truncated" },
          "generator" : { "ladder" : "0.1.0", "libjpeg" : "2.1.5", "libvips" : "8.14.1" },
          "images" : {
            "\(sha1)" : {
              "height" : 3000, "width" : 4000,
              "sources" : [ "photos/beach.jpg", "photos/copy of beach.jpg" ],
              "variants" : {
                "full" : { "bytes" : 401234, "height" : 1920, "path" : "variants/3f/\(sha1)-full-9b1e04d2.jpg",
                  "progressive" : true, "recipe" : "9b1e04d2", "scans" : 3, "scanEnds" : [9000, 90000, 401234], "sha256" : "\(String(repeating: "a", count: 64))", "width" : 2560 },
                "large_thumb" : { "bytes" : 52000, "height" : 480, "path" : "variants/3f/\(sha1)-large_thumb-77f76d11.jpg",
                  "progressive" : false, "recipe" : "77f76d11", "scans" : 1, "sha256" : "\(String(repeating: "b", count: 64))", "width" : 640 },
                "small_thumb" : { "bytes" : 5000, "height" : 120, "path" : "variants/3f/\(sha1)-small_thumb-54c784e1.jpg",
                  "progressive" : false, "recipe" : "54c784e1", "scans" : 1, "sha256" : "\(String(repeating: "c", count: 64))", "width" : 160 }
              }
            }
          },
          "version" : 1
        }
        """

    static func resolver() throws -> VariantResolver {
        VariantResolver(manifest: try Manifest(jsonData: Data(json.utf8)), baseURL: base)
    }

    @Test("a SHA1 gives the ladder an app walks: small_thumb, large_thumb, then the progressive full image")
    func ladder() throws {
        let rungs = try #require(try Self.resolver().ladder(forSHA1: Self.sha1)).rungs
        #expect(rungs.map(\.name) == ["small_thumb", "large_thumb", "full"])
        #expect(
            rungs.first?.url.absoluteString
                == "https://cdn.example.com/site/img/variants/3f/\(Self.sha1)-small_thumb-54c784e1.jpg")
        #expect(rungs.last?.progressive == true && rungs.last?.scanEnds == [9000, 90000, 401234])
        #expect(rungs.last?.scans == 3)
        #expect(rungs.map(\.width) == [160, 640, 2560])
        #expect(rungs.first?.siblings.isEmpty == true)
    }

    @Test("source paths lead to their image, copies included; unknown and failed ones lead nowhere")
    func sources() throws {
        let resolver = try Self.resolver()
        #expect(resolver.sha1(forSource: "photos/beach.jpg") == Self.sha1)
        #expect(resolver.sha1(forSource: "photos/copy of beach.jpg") == Self.sha1)
        #expect(resolver.sha1(forSource: "photos/broken.jpg") == nil)
        #expect(resolver.ladder(forSHA1: String(repeating: "0", count: 40)) == nil)
        #expect(resolver.ladder(forSHA1: Self.sha1.uppercased())?.rungs.count == 3, "hex digits in any case")
    }

    @Test(
        "a view loads the rungs up to the smallest sharp enough for it as shown, or all of them",
        arguments: [
            // 150 x 150 shows the 4:3 photo 150 x 113 inside, or 200 x 150 filling it.
            (150, 150, Ladder.Fit.aspectFit, "small_thumb"), (150, 150, .aspectFill, "large_thumb"),
            (600, 600, .aspectFit, "large_thumb"), (600, 600, .aspectFill, "full"),
            // A wide banner shows the photo 133 pixels wide inside, or 1000 wide cropped.
            (1000, 100, .aspectFit, "small_thumb"), (1000, 100, .aspectFill, "full"),
            (160, 120, .aspectFit, "small_thumb"), (160, 120, .aspectFill, "small_thumb"),
            (5000, 5000, .aspectFit, "full"), (5000, 5000, .aspectFill, "full"),
        ])
    func rungsForView(width: Int, height: Int, fit: Ladder.Fit, needed: String) throws {
        let ladder = try #require(try Self.resolver().ladder(forSHA1: Self.sha1))
        let rungs = ladder.rungs(forWidth: width, height: height, fit: fit)
        #expect(rungs.last?.name == needed)
        #expect(rungs.map(\.name) == Array(ladder.rungs.map(\.name).prefix(rungs.count)), "smallest first")
    }

    @Test(
        "a picture shows at the size its fit gives it, never larger than itself",
        arguments: [
            (Ladder.Fit.aspectFit, 300, 300, 300, 225), (.aspectFill, 300, 300, 400, 300),
            (.aspectFit, 100, 1000, 100, 75), (.aspectFill, 100, 1000, 1333, 1000),
            (.aspectFit, 8000, 8000, 4000, 3000), (.aspectFill, 4000, 10, 4000, 3000),
        ])
    func shownSize(fit: Ladder.Fit, viewWidth: Int, viewHeight: Int, width: Int, height: Int) {
        let shown = fit.shownSize(width: 4000, height: 3000, inWidth: viewWidth, height: viewHeight)
        #expect(shown.width == width && shown.height == height)
    }

    @Test("a rung's smallest file the platform decodes is chosen, the JPEG when no sibling is smaller")
    func formats() throws {
        var manifest = try Manifest(jsonData: Data(Self.json.utf8))
        func sibling(_ name: String, _ bytes: Int) -> Manifest.FormatEntry {
            Manifest.FormatEntry(path: "variants/3f/x.\(name)", bytes: bytes, sha256: String(repeating: "d", count: 64))
        }
        manifest.images[Self.sha1]?.variants["large_thumb"]?.formats = [
            "webp": sibling("webp", 30000), "avif": sibling("avif", 12000), "jxl": sibling("jxl", 60000),
        ]
        let resolver = VariantResolver(manifest: try Manifest(jsonData: manifest.jsonData()), baseURL: Self.base)
        let rung = try #require(resolver.ladder(forSHA1: Self.sha1)?.rungs.first { $0.name == "large_thumb" })
        #expect(rung.siblings.map(\.format) == [.avif, .jxl, .webp])
        #expect(rung.file(decodableIn: [.jpeg, .webp, .avif, .jxl]).format == .avif)
        #expect(rung.file(decodableIn: [.jpeg, .webp]).format == .webp)
        #expect(rung.file(decodableIn: [.jpeg, .jxl]).format == .jpeg, "a larger sibling is not worth it")
        #expect(rung.file(decodableIn: [.jpeg]) == rung.jpeg)
        #expect(rung.file(decodableIn: [.jpeg, .avif]).url.absoluteString.hasSuffix("variants/3f/x.avif"))
    }

    @Test("a base folder whose name needs escaping gives valid URLs")
    func escaping() throws {
        let manifest = try Manifest(jsonData: Data(Self.json.utf8))
        let resolver = VariantResolver(
            manifest: manifest, baseURL: URL(string: "https://cdn.example.com/my%20photos/")!)
        let url = try #require(resolver.ladder(forSHA1: Self.sha1)?.rungs.first?.url)
        #expect(url.absoluteString.hasPrefix("https://cdn.example.com/my%20photos/variants/3f/"))
        #expect(URL(string: url.absoluteString) == url)
    }
}

/// The app-side example, examples/app/LoadProgressively.swift, run against a fake network.
@Suite("App example")
struct AppExampleTests {
    @Test("a view loads the rungs smallest first and stops at the one it needs")
    func loadsUpToTheView() async throws {
        let resolver = try VariantResolverTests.resolver()
        var fetched: [String] = []
        var shown: [String] = []
        try await loadProgressively(
            sha1: VariantResolverTests.sha1, resolver: resolver, viewWidth: 600, viewHeight: 600, fit: .aspectFit,
            fetch: { url in
                fetched.append(url.lastPathComponent)
                return Data(url.lastPathComponent.utf8)
            },
            show: { data, rung in shown.append(rung.name + ":" + String(decoding: data, as: UTF8.self).prefix(4)) })
        #expect(fetched.count == 2 && fetched.allSatisfy { $0.hasPrefix(String(VariantResolverTests.sha1.prefix(4))) })
        #expect(shown == ["small_thumb:3fa4", "large_thumb:3fa4"], "the full image is not needed at 600x600")
    }
}
