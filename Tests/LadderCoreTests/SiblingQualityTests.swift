import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// Equal quality, fewer bytes, or no sibling: every WebP and AVIF sibling a build writes is at
/// least as close to the resized picture as its JPEG rung, by butteraugli and by SSIM, as an
/// oracle apart from ladder measures them (scripts/reference/closeness.py: libjxl's butteraugli
/// through ctypes and scikit-image's SSIM, on pixels decoded by djpeg, dwebp and avifdec). The
/// sources are generated at the variant's size, so the resized picture is the source itself.
/// The search itself is checked with a made-up format whose closeness and size are known.
@Suite("Sibling quality", .serialized)
struct SiblingQualityTests {
    /// The package's root, for its scripts.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A Python with numpy, scikit-image and Pillow: scripts/bootstrap's `.build/quality-tools`,
    /// else the system's.
    static let python: String? = {
        let candidates =
            [packageRoot.appendingPathComponent(".build/quality-tools/bin/python3").path]
            + [ExternalTools.find("python3")].compactMap { $0 }
        return candidates.first { candidate in
            FileManager.default.isExecutableFile(atPath: candidate)
                && (try? ExternalTools.run(candidate, ["-c", "import numpy, skimage, PIL"])) != nil
        }
    }()

    static let oracleRuns =
        (python != nil && ExternalTools.djpeg != nil && ExternalTools.dwebp != nil && ExternalTools.avifdec != nil)
        || ExternalTools.inCI

    /// Pictures where formats differ most: noise, text on colour, flat art, a gradient, and a
    /// photo-like scene, each 200 x 150 or smaller.
    static func sources() throws -> [(name: String, image: Image)] {
        let noise = AdversarialImages.Random(seed: 29)
        let text = BitmapText.render(["LADDER 0123", "FOX JUMPS"], scale: 2)
        return [
            ("noise", AdversarialImages.rgb(160, 120) { _, _ in [noise.byte(), noise.byte(), noise.byte()] }),
            (
                "text",
                AdversarialImages.rgb(text.width, text.height) { x, y in
                    text.ink(x, y) ? [200, 30, 90] : [40, 170, 120]
                }
            ),
            ("flat-art", AdversarialImages.flatArt(side: 150)),
            (
                "gradient",
                AdversarialImages.rgb(200, 150) { x, y in
                    [UInt8(x * 255 / 199), UInt8(y * 255 / 149), UInt8((x + y) * 255 / 348)]
                }
            ),
            ("camera", try Image(decoding: TestImages.cameraJPEG(width: 200, height: 150))),
        ]
    }

    @Test(
        "every WebP and AVIF sibling is at least as close to the picture as its JPEG, by butteraugli and by SSIM",
        .enabled(if: oracleRuns, "Python with numpy, scikit-image and Pillow, djpeg, dwebp or avifdec is missing"))
    func siblingsAsCloseAsJPEG() throws {
        TestImages.start()
        let python = try ExternalTools.require(Self.python, "Python with numpy, scikit-image and Pillow")
        let djpeg = try ExternalTools.require(ExternalTools.djpeg, ExternalTools.djpegPackage)
        let dwebp = try ExternalTools.require(ExternalTools.dwebp, "webp (dwebp)")
        let avifdec = try ExternalTools.require(ExternalTools.avifdec, "libavif-bin (avifdec)")
        let folder = TemporaryDirectory("ladder-sibling-quality")
        let sources = try Self.sources()
        for (name, image) in sources { try folder.write(try image.encoded(as: ".png"), to: "photos/\(name).png") }
        try Pipelines.write(
            """
            {"version": 1, "sources": ["photos"], "output": "out", "variants": {
              "large_thumb": {"maxWidth": 200, "maxHeight": 200, "formats": ["webp", "avif"]}}}
            """, in: folder)
        let report = try Pipelines.build(in: folder)
        #expect(
            report.siblingsWritten.values.reduce(0, +) + report.siblingsSkipped.values.reduce(0, +)
                == 2 * sources.count, "each sibling asked for is written or counted as skipped")
        let manifest = try Manifest(jsonData: Data(contentsOf: URL(fileURLWithPath: folder.path("out/manifest.json"))))
        var compared: [SiblingFormat: Int] = [:]
        for entry in manifest.images.values {
            let name = try #require(entry.sources.first).split(separator: "/").last!.dropLast(4)
            let variant = try #require(entry.variants["large_thumb"])
            var decoded = [folder.path("photos/\(name).png")]
            decoded.append(folder.path("\(name)-jpeg.ppm"))
            try ExternalTools.run(djpeg, ["-ppm", "-outfile", decoded[1], folder.path("out/" + variant.path)])
            var formats: [SiblingFormat] = []
            for (formatName, sibling) in (variant.formats ?? [:]).sorted(by: { $0.key < $1.key }) {
                let format = try #require(SiblingFormat(rawValue: formatName))
                let file = folder.path("out/" + sibling.path)
                let target = folder.path("\(name)-\(formatName)" + (format == .avif ? ".png" : ".ppm"))
                if format == .avif {
                    // Chroma upsampled as libheif 1.15 does it, which ladder measures with
                    // (docs/PIPELINE.md, "Format siblings").
                    try ExternalTools.run(avifdec, ["-u", "nearest", file, target])
                } else {
                    try ExternalTools.run(dwebp, ["-quiet", file, "-ppm", "-o", target])
                }
                decoded.append(target)
                formats.append(format)
            }
            let script = Self.packageRoot.appendingPathComponent("scripts/reference/closeness.py").path
            let lines = String(decoding: try ExternalTools.run(python, [script] + decoded), as: UTF8.self)
                .split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
            try #require(lines.count == formats.count + 1 && lines.allSatisfy { $0.count == 2 }, "\(lines)")
            let jpeg = lines[0]
            for (format, measured) in zip(formats, lines.dropFirst()) {
                #expect(
                    measured[0] <= jpeg[0],
                    "\(name) \(format): butteraugli \(measured[0]), the JPEG's \(jpeg[0])")
                #expect(measured[1] >= jpeg[1], "\(name) \(format): SSIM \(measured[1]), the JPEG's \(jpeg[1])")
                compared[format, default: 0] += 1
            }
        }
        // Not vacuous: AVIF beats the JPEG at equal quality on the flat pictures at least.
        #expect(compared[.avif] ?? 0 >= 2, "AVIF siblings written: \(compared)")
    }

    /// A format whose closeness and size grow with quality: as close as the JPEG from quality
    /// `threshold` up, and as large as it from `sizeLimit` up.
    static func search(threshold: Int, sizeLimit: Int, from start: Int) throws -> SiblingProbe.Outcome {
        let probe = SiblingProbe(jpeg: Closeness(butteraugli: 2, ssim: 0.95), jpegBytes: sizeLimit * 10)
        return try probe.search(
            from: start, encode: { [UInt8](repeating: 0, count: $0 * 10) },
            measure: { bytes in
                let quality = bytes.count / 10
                return quality >= threshold
                    ? Closeness(butteraugli: 1.9, ssim: 0.96) : Closeness(butteraugli: 2.1, ssim: 0.96)
            })
    }

    @Test("the search keeps the lowest quality tried that is as close as the JPEG and smaller, within its probes")
    func searchFindsLowestHolding() throws {
        // From 75 down: 75 holds, 65 holds, 55 fails, 60 holds: kept 60 after 4 encodes.
        let down = try Self.search(threshold: 58, sizeLimit: 101, from: 75)
        #expect(down.tried == [75, 65, 55, 60] && down.kept?.quality == 60)
        // From 75 up: 75 fails, 85 holds, 80 fails, 82 holds.
        let up = try Self.search(threshold: 81, sizeLimit: 101, from: 75)
        #expect(up.tried == [75, 85, 80, 82] && up.kept?.quality == 82)
    }

    @Test("a sibling no smaller than the JPEG where it is not yet as close ends the search with nothing kept")
    func searchStopsWhenNothingCanHold() throws {
        let outcome = try Self.search(threshold: 90, sizeLimit: 70, from: 75)
        #expect(outcome.tried == [75] && outcome.kept == nil)
        // As close only where it is larger: nothing is kept.
        let larger = try Self.search(threshold: 72, sizeLimit: 70, from: 75)
        #expect(larger.kept == nil)
    }
}
