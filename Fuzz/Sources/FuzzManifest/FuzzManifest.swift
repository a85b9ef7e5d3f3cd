import Foundation
import FuzzSupport
import LadderManifest

/// The manifest reader: `ladder verify` and client apps read manifests from anyone.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzSupport.bytes(data, size))
    if let shape = try? Manifest(shapeOf: bytes) {
        _ = shape.contentProblems()
    }
    guard let manifest = try? Manifest(jsonData: bytes) else { return 0 }
    let resolver = VariantResolver(manifest: manifest, baseURL: URL(fileURLWithPath: "/srv/photos/"))
    for (sha1, entry) in manifest.images {
        _ = resolver.ladder(forSHA1: sha1)
        for source in entry.sources { _ = resolver.sha1(forSource: source) }
    }
    // What ladder writes it must read back as the same manifest.
    let reread = try? Manifest(jsonData: manifest.jsonData())
    precondition(reread != nil, "a manifest that was read cannot be read back after writing")
    return 0
}

@main
enum FuzzManifestMain {
    static func main() {
        FuzzSupport.run(
            seeds: {
                let sha1 = String(repeating: "ab", count: 20)
                let sha256 = String(repeating: "cd", count: 32)
                func variant(_ name: String, _ width: Int, _ scans: Int) -> Manifest.VariantEntry {
                    Manifest.VariantEntry(
                        path: "\(sha1.prefix(2))/\(sha1)/\(name).jpg", width: width, height: width * 3 / 4,
                        bytes: width * 40,
                        sha256: sha256, progressive: scans > 1, scans: scans, recipe: sha1)
                }
                let entry = Manifest.ImageEntry(
                    sources: ["photos/a.jpg", "photos/caf\u{E9}.jpg"], width: 640, height: 480,
                    variants: ["small_thumb": variant("small_thumb", 64, 1), "full": variant("full", 640, 5)],
                    format: "jpeg", bytes: 123_456, orientation: 6, captured: "2024-05-01T10:00:00", gpsRemoved: true)
                let generator = Manifest.Generator(
                    ladder: "1.0.0", libvips: "8.14.1", libjpeg: "2.1.5", libexif: "0.6.24")
                let full = Manifest(
                    generator: generator, images: [sha1: entry], failures: ["photos/bad.jpg": "not an image"])
                let shard = Manifest(
                    generator: generator, images: [sha1: entry],
                    shard: Manifest.Shard(index: 1, count: 2, sources: 3, sourcesSHA1: sha1, recipes: ["full": sha1]))
                return [
                    Array(full.jsonData()), Array(shard.jsonData()), Array(Manifest(generator: generator).jsonData()),
                ]
            }, fuzzOneInput)
    }
}
