import LadderCore
import LadderImaging
import LadderManifest
import LadderTestSupport
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
    static let variants = PipelineConfiguration.defaultVariants
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

    @Test("when the source's sides do not scale by the same factor to whole pixels, every variant still matches the reference")
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

    @Test("any change of the resampling changes the thumbnails' bytes and their fingerprint, so cached variants are made again")
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
        for other in alternatives {
            var previous = Manifest.ImageEntry(sources: ["a.jpg"], width: 1200, height: 900, variants: [:])
            var fingerprints: [String: String] = [:]
            for recipe in Self.variants {
                let old = RecipeFingerprint.compute(
                    recipe, background: .white, keep: [], versions: versions, resampling: other)
                let new = RecipeFingerprint.compute(recipe, background: .white, keep: [], versions: versions)
                #expect(old != new, "\(recipe.name) made with \(other) keeps its fingerprint")
                fingerprints[recipe.name] = new
                previous.variants[recipe.name] = Manifest.VariantEntry(
                    path: "x/\(recipe.name).jpg", width: 1, height: 1, bytes: 1, sha256: "", progressive: false,
                    scans: 1, recipe: old)
            }
            let plan = Planner.plan(previous: previous, fingerprints: fingerprints) { _ in true }
            #expect(plan.render == Self.variants.map(\.name).sorted(), "variants made with \(other) are kept")
        }
        // The fingerprint follows the renderer's own resampling.
        #expect(
            RecipeFingerprint.compute(Self.variants[0], background: .white, keep: [], versions: versions)
                == RecipeFingerprint.compute(
                    Self.variants[0], background: .white, keep: [], versions: versions,
                    resampling: VariantRenderer().resampling))
    }
}
