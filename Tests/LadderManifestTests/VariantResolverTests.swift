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
                  "progressive" : true, "recipe" : "9b1e04d2", "scans" : 5, "sha256" : "\(String(repeating: "a", count: 64))", "width" : 2560 },
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
        let ladder = try #require(try Self.resolver().ladder(forSHA1: Self.sha1))
        #expect(ladder.map(\.name) == ["small_thumb", "large_thumb", "full"])
        #expect(
            ladder.first?.url.absoluteString
                == "https://cdn.example.com/site/img/variants/3f/\(Self.sha1)-small_thumb-54c784e1.jpg")
        #expect(ladder.last?.progressive == true && ladder.last?.scans == 5)
        #expect(ladder.map(\.width) == [160, 640, 2560])
    }

    @Test("source paths lead to their image, copies included; unknown and failed ones lead nowhere")
    func sources() throws {
        let resolver = try Self.resolver()
        #expect(resolver.sha1(forSource: "photos/beach.jpg") == Self.sha1)
        #expect(resolver.sha1(forSource: "photos/copy of beach.jpg") == Self.sha1)
        #expect(resolver.sha1(forSource: "photos/broken.jpg") == nil)
        #expect(resolver.ladder(forSHA1: String(repeating: "0", count: 40)) == nil)
        #expect(resolver.ladder(forSHA1: Self.sha1.uppercased())?.count == 3, "hex digits in any case")
    }

    @Test("the rung for a view is the smallest sharp enough for it as shown, or the largest")
    func rungForView() throws {
        let resolver = try Self.resolver()
        #expect(resolver.rung(forSHA1: Self.sha1, fittingWidth: 150, height: 150)?.name == "small_thumb")
        #expect(resolver.rung(forSHA1: Self.sha1, fittingWidth: 600, height: 600)?.name == "large_thumb")
        // A wide banner shows the 4:3 photo 133 pixels wide: the small thumbnail is enough.
        #expect(resolver.rung(forSHA1: Self.sha1, fittingWidth: 1000, height: 100)?.name == "small_thumb")
        #expect(resolver.rung(forSHA1: Self.sha1, fittingWidth: 5000, height: 5000)?.name == "full")
    }

    @Test("a base folder whose name needs escaping gives valid URLs")
    func escaping() throws {
        let manifest = try Manifest(jsonData: Data(Self.json.utf8))
        let resolver = VariantResolver(
            manifest: manifest, baseURL: URL(string: "https://cdn.example.com/my%20photos/")!)
        let url = try #require(resolver.ladder(forSHA1: Self.sha1)?.first?.url)
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
            sha1: VariantResolverTests.sha1, resolver: resolver, viewWidth: 600, viewHeight: 600,
            fetch: { url in
                fetched.append(url.lastPathComponent)
                return Data(url.lastPathComponent.utf8)
            },
            show: { data, rung in shown.append(rung.name + ":" + String(decoding: data, as: UTF8.self).prefix(4)) })
        #expect(fetched.count == 2 && fetched.allSatisfy { $0.hasPrefix(String(VariantResolverTests.sha1.prefix(4))) })
        #expect(shown == ["small_thumb:3fa4", "large_thumb:3fa4"], "the full image is not needed at 600x600")
    }
}
