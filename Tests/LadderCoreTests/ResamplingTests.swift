import LadderCore
import LadderImaging
import LadderManifest
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thumbnails as faithful as a reference resampler: a zone plate (rings whose frequency rises to
/// the pixel pitch at the edges) shows aliasing and blur at once, and the variants made of it must
/// score within 0.005 SSIM of the reference itself saved at the same JPEG quality.
@Suite("Resampling")
struct ResamplingTests {
    static let variants = Defaults.variants
    static let settings = RenderSettings(background: .white, keep: [])

    init() { TestImages.start() }

    /// A gray zone plate, `width` x `height`: 128 + 100 cos(k r^2), with k chosen so that the
    /// rings reach half a cycle per pixel (the finest a picture holds) at the middle of the
    /// longer edge.
    static func zonePlate(width: Int, height: Int) throws -> Image {
        let radius = Double(max(width, height)) / 2
        let k = Double.pi * 0.5 / radius
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let dy = Double(y) - Double(height) / 2
            for x in 0..<width {
                let dx = Double(x) - Double(width) / 2
                let value = UInt8((128 + 100 * cos(k * (dx * dx + dy * dy))).rounded())
                let offset = (y * width + x) * 3
                pixels[offset] = value
                pixels[offset + 1] = value
                pixels[offset + 2] = value
            }
        }
        return try Image(pixels: pixels, width: width, height: height, bands: 3, space: .sRGB)
    }

    /// The luma plane of a JPEG, decoded by libjpeg itself.
    static func luma(ofJPEG bytes: [UInt8]) throws -> DecodedPixels {
        let decoded = try DecodedPixels(decodingJPEG: bytes)
        return DecodedPixels(
            width: decoded.width, height: decoded.height, components: 1, samples: decoded.luma())
    }

    static func ssim(_ picture: DecodedPixels, _ reference: DecodedPixels) -> Double {
        ImageQuality.ssim(
            picture.samples, reference: reference.samples, width: reference.width, height: reference.height)
    }

    /// For each variant: SSIM of the rendered variant and of the reference saved at the same
    /// quality by libvips' own JPEG saver, both against the reference's pixels.
    static func scores(
        renderer: VariantRenderer, source: Image
    ) throws -> [(name: String, rendered: Double, reference: Double)] {
        let bytes = try source.encoded(as: ".png[compression=1]")
        let rendered = try renderer.render(bytes, variants: variants, settings: settings)
        var result: [(String, Double, Double)] = []
        for recipe in variants {
            let variant = try #require(rendered.variants.first { $0.name == recipe.name })
            let reference = try source.resized(to: variant.size, with: .lanczos3).inMemory()
            let referenceLuma = try reference.decodedPixels()
            let referencePlane = DecodedPixels(
                width: reference.width, height: reference.height, components: 1, samples: referenceLuma.luma())
            let saved = try reference.encoded(as: ".jpg[Q=\(recipe.quality)]")
            result.append(
                (
                    recipe.name, ssim(try luma(ofJPEG: variant.bytes), referencePlane),
                    ssim(try luma(ofJPEG: saved), referencePlane)
                ))
        }
        return result
    }

    /// Renders `source` and expects every variant within `tolerance(name)` SSIM of the reference
    /// saved alike.
    static func expectMatchesReference(_ source: Image, tolerance: (String) -> Double) throws {
        let scores = try scores(renderer: VariantRenderer(), source: source)
        #expect(scores.map(\.name).sorted() == ["full", "large_thumb", "small_thumb"])
        for score in scores {
            #expect(
                score.rendered >= score.reference - tolerance(score.name),
                "\(score.name): SSIM \(score.rendered), the reference saved alike scores \(score.reference)")
        }
    }

    @Test("thumbnails of a zone plate are within 0.005 SSIM of libvips' Lanczos3 from the full picture")
    func zonePlateMatchesReference() throws {
        // Larger than the full-size box, so that every variant is resized.
        try Self.expectMatchesReference(try Self.zonePlate(width: 3200, height: 2400)) { _ in 0.005 }
    }

    @Test(
        "when the source's sides do not scale by the same factor to whole pixels, every variant still matches the reference"
    )
    func unevenAspectMatchesReference() throws {
        // 3064 x 2379 fits 2560 x 1988, 0.27 of a row more than the width's factor gives: a decode
        // that scales both sides by one factor and rounds is a quarter pixel off at the bottom,
        // which the zone plate's fine rings turn into a visible loss. The full-size variant is
        // decoded straight to its size, so it must score as the reference itself does; the
        // thumbnails, made in a chain, within 0.005 as for any source.
        try Self.expectMatchesReference(try Self.zonePlate(width: 3064, height: 2379)) { name in
            name == "full" ? 0.002 : 0.005
        }
    }

    @Test("the zone plate tells a triangle filter from Lanczos3: the large thumbnail misses by more than 0.005 SSIM")
    func zonePlateCatchesTriangleFilter() throws {
        let source = try Self.zonePlate(width: 3200, height: 2400)
        let lanczos = try Self.scores(renderer: VariantRenderer(), source: source)
        let triangle = try Self.scores(
            renderer: VariantRenderer(resampling: .triangle), source: source)
        let large = try #require(triangle.first { $0.name == "large_thumb" })
        #expect(
            large.rendered < large.reference - 0.005,
            "large_thumb: SSIM \(large.rendered) against \(large.reference) for the reference")
        for name in ["small_thumb", "large_thumb"] {
            let soft = try #require(triangle.first { $0.name == name })
            let sharp = try #require(lanczos.first { $0.name == name })
            #expect(soft.rendered < sharp.rendered, "\(name): triangle \(soft.rendered), Lanczos3 \(sharp.rendered)")
        }
    }

    /// Small dark text on white, as a grayscale picture: "glyphs" of one-pixel black strokes,
    /// eight pixels a letter, eighteen a line, placed by a fixed linear congruential sequence
    /// (no font needed: the strokes only have to be as dense and hard-edged as small print).
    static func smallText(width: Int, height: Int) throws -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height)
        var state: UInt64 = 12345
        func next() -> Int {
            state = (state &* 1_103_515_245 &+ 12345) % (1 << 31)
            return Int(state >> 16)
        }
        for top in stride(from: 20, to: height - 20, by: 18) {
            for left in stride(from: 20, to: width - 20, by: 8) {
                if next() % 6 == 0 { continue }  // a space
                for _ in 0..<3 {
                    if next() % 2 == 1 {
                        let x = left + next() % 6
                        let y = top + next() % 4
                        for row in y..<(y + 8 + next() % 4) { pixels[row * width + x] = 0 }
                    } else {
                        let y = top + next() % 12
                        let x = left + next() % 3
                        for column in x..<(x + 3 + next() % 4) { pixels[y * width + column] = 0 }
                    }
                }
            }
        }
        return try Image(pixels: pixels, width: width, height: height, bands: 1, space: .grayscale)
    }

    /// Luma PSNR of a JPEG against the source resized by libvips' Lanczos3 alone to its size.
    static func psnr(ofJPEG bytes: [UInt8], source: Image) throws -> Double {
        let made = try luma(ofJPEG: bytes)
        let reference = try source.resized(to: PixelSize(width: made.width, height: made.height), with: .lanczos3)
            .inMemory().decodedPixels()
        return ImageQuality.psnr(made.samples, reference: reference.luma())
    }

    @Test("small text keeps its ink in the thumbnails: each within 0.5 dB of libvips' own thumbnail of the source")
    func smallTextMatchesLibvipsThumbnail() throws {
        // Lanczos3 rings around every black stroke on white; an 8-bit picture between two resizes
        // clips the ringing at 0 and 255, and the next resize turns what was clipped into grey
        // (about 1 dB lost against the reference, which resizes once). libvips' thumbnail, as
        // vipsthumbnail runs it, is the yardstick: one decode per size, a box shrink first, which
        // never rings.
        let source = try Self.smallText(width: 2800, height: 2000)
        let bytes = try source.encoded(as: ".png[compression=1]")
        let rendered = try VariantRenderer().render(bytes, variants: Self.variants, settings: Self.settings)
        let header = try ImageHeader(reading: bytes)
        for name in ["small_thumb", "large_thumb"] {
            let recipe = try #require(Self.variants.first { $0.name == name })
            let variant = try #require(rendered.variants.first { $0.name == name })
            let thumbnail = try Image.decode(
                bytes, header: header, fitting: PixelSize(width: recipe.maxWidth, height: recipe.maxHeight),
                background: .white, strictness: .warning
            ).image
            let libvips = try thumbnail.encoded(as: ".jpg[Q=\(recipe.quality)]")
            let ours = try Self.psnr(ofJPEG: variant.bytes, source: source)
            let theirs = try Self.psnr(ofJPEG: libvips, source: source)
            #expect(ours >= theirs - 0.5, "\(name): \(ours) dB against libvips' thumbnail's \(theirs) dB")
        }
    }

    @Test(
        "any change of the resampling changes the thumbnails' bytes and their fingerprint, so cached variants are made again"
    )
    func resamplingInvalidatesCachedVariants() throws {
        let source = try TestImages.gradientJPEG(width: 1200, height: 900)
        let versions = Imaging.versions
        let current = VariantRenderer.resampling
        let made = try VariantRenderer().render(source, variants: Self.variants, settings: Self.settings)
        let triangle = try VariantRenderer(resampling: .triangle).render(
            source, variants: Self.variants, settings: Self.settings)
        for name in ["small_thumb", "large_thumb"] {
            let before = try #require(made.variants.first { $0.name == name })
            let after = try #require(triangle.variants.first { $0.name == name })
            #expect(before.bytes != after.bytes, "\(name) does not depend on the resampling")
        }
        let alternatives = Image.Resampling.Kernel.allCases.flatMap { kernel in
            [0.0, 2.0].map { Image.Resampling(kernel: kernel, gap: $0) }
        }.filter { $0 != current }
        #expect(alternatives.count == 11)
        // And the same resampling arranged otherwise, which only the renderer revision records:
        // revision 3 resized small_thumb from large_thumb, revision 4 from the decoded picture.
        let revision = RendererIdentity.current.revision
        let earlier = alternatives.map { ($0, revision) } + [(current, revision - 1)]
        for (other, otherRevision) in earlier {
            var previous = Manifest.ImageEntry(sources: ["a.jpg"], width: 1200, height: 900, variants: [:])
            var fingerprints: [String: String] = [:]
            for recipe in Self.variants {
                let old = RecipeFingerprint.compute(
                    recipe, background: .white, keep: [], versions: versions,
                    renderer: RendererIdentity(revision: otherRevision, resampling: other))
                let new = RecipeFingerprint.compute(recipe, background: .white, keep: [], versions: versions)
                #expect(
                    old != new, "\(recipe.name) made with \(other) by revision \(otherRevision) keeps its fingerprint")
                fingerprints[recipe.name] = new
                previous.variants[recipe.name] = Manifest.VariantEntry(
                    path: "x/\(recipe.name).jpg", width: 1, height: 1, bytes: 1, sha256: "", progressive: false,
                    scans: 1, recipe: old)
            }
            let plan = Planner.plan(previous: previous, fingerprints: fingerprints) { _ in true }
            #expect(
                plan.render == Self.variants.map(\.name).sorted(),
                "variants made with \(other) by revision \(otherRevision) are kept")
        }
        // The fingerprint follows the renderer's own resampling.
        #expect(
            RecipeFingerprint.compute(Self.variants[0], background: .white, keep: [], versions: versions)
                == RecipeFingerprint.compute(
                    Self.variants[0], background: .white, keep: [], versions: versions,
                    renderer: RendererIdentity(revision: revision, resampling: VariantRenderer().resampling)))
    }
}
