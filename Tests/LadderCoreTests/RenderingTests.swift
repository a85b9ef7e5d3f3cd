import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// What a user sees in the variants: upright pixels, sRGB, flattened alpha, no private metadata,
/// exact scans.
@Suite("Rendering")
struct RenderingTests {
    static let variants = Defaults.variants
    static let settings = RenderSettings(background: .white, keep: [])

    init() { TestImages.start() }

    static func render(_ bytes: [UInt8], settings: RenderSettings = settings) throws -> RenderedSource {
        try ExclusiveRenderer().render(bytes, variants: variants, settings: settings)
    }

    static func variant(_ name: String, of source: RenderedSource) throws -> RenderedVariant {
        try #require(source.variants.first { $0.name == name })
    }

    /// True when `pixel` is close to `expected` in every channel (JPEG is lossy).
    static func isClose(_ pixel: [UInt8], _ expected: [UInt8], tolerance: Int = 40) -> Bool {
        pixel.count == expected.count && zip(pixel, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    @Test("every EXIF orientation comes out upright, at the upright size, with no orientation tag", arguments: 1...8)
    func orientation(_ orientation: Int) throws {
        let source = try TestImages.orientedQuadrantJPEG(width: 300, height: 200, orientation: orientation)
        let rendered = try Self.render(source)
        #expect(rendered.facts.size == PixelSize(width: 300, height: 200))
        #expect(rendered.facts.orientation == orientation)
        for variant in rendered.variants {
            let image = try Image(decoding: variant.bytes)
            #expect(image.size == variant.size)
            #expect(image.width > image.height, "\(variant.name) is landscape like the upright source")
            let points = [(1, 1), (3, 1), (1, 3), (3, 3)].map { (image.width * $0.0 / 4, image.height * $0.1 / 4) }
            for (quadrant, point) in points.enumerated() {
                let pixel = try image.pixel(x: point.0, y: point.1)
                #expect(
                    Self.isClose(pixel, TestImages.quadrantColors[quadrant]),
                    "orientation \(orientation), \(variant.name), quadrant \(quadrant): \(pixel)")
            }
            let header = try ImageHeader(reading: variant.bytes)
            #expect(header.exif?.orientation == nil, "no orientation tag is left")
        }
    }

    @Test(
        "the full-size variant has exactly 5 scans, the DC of every component first; thumbnails are baseline",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func scans() throws {
        let rendered = try Self.render(TestImages.gradientJPEG(width: 800, height: 600))
        // As libjpeg-turbo's own decoder reads the files (djpeg).
        let full = try ExternalTools.djpegStructure(Self.variant("full", of: rendered).bytes)
        #expect(full.isProgressive)
        // The script itself is chosen per image (ScanChoiceTests); its shape is fixed.
        #expect(full.scans.count == 5)
        let first = try #require(full.scans.first)
        #expect(first.components == [0, 1, 2] && first.ss == 0 && first.se == 0 && first.ah == 0)
        let small = try ExternalTools.djpegStructure(Self.variant("small_thumb", of: rendered).bytes)
        #expect(!small.isProgressive)
        #expect(small.scans.count == 1)
        #expect(try Self.variant("small_thumb", of: rendered).size == PixelSize(width: 160, height: 120))
    }

    @Test(
        "grayscale stays grayscale, in exactly 5 scans with the DC first",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func grayscale() throws {
        let rendered = try Self.render(TestImages.grayscaleJPEG())
        let full = try ExternalTools.djpegStructure(Self.variant("full", of: rendered).bytes)
        #expect(full.sampling.count == 1)
        #expect(full.scans.count == 5)
        let first = try #require(full.scans.first)
        #expect(first.components == [0] && first.ss == 0 && first.se == 0 && first.ah == 0)
    }

    @Test(
        "CMYK, Display P3 and 16-bit sources come out as 8-bit sRGB with the right colors",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func colorConversion() throws {
        for (label, source) in [
            ("cmyk", try TestImages.cmykJPEG()), ("p3", try TestImages.displayP3JPEG()),
            ("16-bit", try TestImages.sixteenBitPNG()),
        ] {
            let rendered = try Self.render(source)
            let bytes = try Self.variant("large_thumb", of: rendered).bytes
            let read = try ExternalTools.djpegStructure(bytes)
            #expect(read.sampling.count == 3, "\(label): three components")
            #expect(!read.applicationMarkers.contains(0xE2), "\(label): no ICC profile (APP2) left")
            #expect(!read.applicationMarkers.contains(0xEE), "\(label): no Adobe (APP14) segment: not CMYK")
            let image = try Image(decoding: bytes)
            let expected = label == "cmyk" ? TestImages.mutedQuadrantColors : TestImages.quadrantColors
            let points = [(1, 1), (3, 1), (1, 3), (3, 3)].map { (image.width * $0.0 / 4, image.height * $0.1 / 4) }
            for (quadrant, point) in points.enumerated() {
                let pixel = try image.pixel(x: point.0, y: point.1)
                #expect(
                    Self.isClose(pixel, expected[quadrant], tolerance: 25), "\(label) quadrant \(quadrant): \(pixel)")
            }
        }
    }

    @Test("transparent pixels are flattened onto the configured background")
    func alpha() throws {
        for background in [RGBColor.white, RGBColor("#102030")!] {
            let settings = RenderSettings(background: background, keep: [])
            let rendered = try Self.render(TestImages.halfTransparentPNG(), settings: settings)
            let image = try Image(decoding: Self.variant("full", of: rendered).bytes)
            #expect(image.bands == 3)
            #expect(Self.isClose(try image.pixel(x: 8, y: 24), [220, 30, 30]))
            #expect(
                Self.isClose(
                    try image.pixel(x: 56, y: 24), [background.red, background.green, background.blue], tolerance: 12))
        }
    }

    @Test("an animation gives its first frame")
    func firstFrame() throws {
        let rendered = try Self.render(TestImages.animatedGIF())
        #expect(rendered.facts.size == PixelSize(width: 40, height: 30))
        let image = try Image(decoding: Self.variant("full", of: rendered).bytes)
        #expect(Self.isClose(try image.pixel(x: 20, y: 15), [220, 20, 20]))
    }

    @Test(
        "metadata is stripped by default: no GPS, no EXIF thumbnail, no EXIF at all",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func stripsMetadata() throws {
        let source = try TestImages.cameraJPEG()
        let sourceHeader = try ImageHeader(reading: source)
        #expect(
            sourceHeader.exif?.hasGPS == true && sourceHeader.exif?.hasThumbnail == true, "the test source has them")
        let rendered = try Self.render(source)
        #expect(rendered.facts.hadGPS)
        #expect(rendered.facts.captured == "2024-05-17T09:30:12")
        for variant in rendered.variants {
            let read = try ExternalTools.djpegStructure(variant.bytes)
            #expect(read.applicationMarkers == [0xE0], "\(variant.name): only JFIF's APP0")
        }
    }

    @Test("the keep list carries the chosen tags and nothing else")
    func keepList() throws {
        let settings = RenderSettings(background: .white, keep: [.artist, .copyright])
        let rendered = try Self.render(TestImages.cameraJPEG(orientation: 6), settings: settings)
        let exif = try #require(try ImageHeader(reading: Self.variant("full", of: rendered).bytes).exif)
        #expect(exif.fields == [.artist: "Ada Lovelace", .copyright: "(c) 2026 Ada Lovelace"])
        #expect(!exif.hasGPS)
        #expect(!exif.hasThumbnail)
        #expect(exif.orientation == nil)
    }

    @Test("a truncated file fails with a reason instead of coming out with a grey bottom")
    func truncated() throws {
        let source = try TestImages.gradientJPEG(width: 400, height: 300)
        #expect { try Self.render(Array(source.prefix(source.count * 2 / 3))) } throws: { error in
            "\(error)".lowercased().contains("premature end") || "\(error)".lowercased().contains("truncat")
        }
    }

    @Test(
        "content, not the name, decides the type: what is not a supported image is refused with what it is",
        arguments: [
            ("hello, this is text", "the content is text"),
            ("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>", "an SVG document"),
            ("%PDF-1.4 ...", "a PDF document"),
            ("", "an empty file"),
        ])
    func notAnImage(_ content: String, _ reason: String) {
        #expect { try Self.render(Array(content.utf8)) } throws: { "\($0)".contains(reason) }
    }

    @Test("a format left out of decoding.formats is refused by name")
    func disabledFormat() throws {
        var limits = DecodeLimits()
        limits.formats = [.jpeg]
        let settings = RenderSettings(background: .white, keep: [], limits: limits)
        #expect { try Self.render(TestImages.halfTransparentPNG(), settings: settings) } throws: { error in
            "\(error)".contains("PNG files are not enabled")
        }
    }

    @Test("a render worker's loaders are fixed when it starts: a format left out stays blocked in libvips itself")
    func workerLoaders() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        var limits = DecodeLimits()
        limits.formats = [.jpeg]
        let pool = WorkerPool(settings: WorkerPool.Settings(for: limits, executable: executable, workers: 1))
        defer { pool.shutdown() }
        // Asked with every format allowed, so that only the worker's loaders can refuse it.
        #expect {
            try pool.render(TestImages.halfTransparentPNG(), variants: Self.variants, settings: Self.settings)
        } throws: { error in !"\(error)".contains("not enabled") }
        let rendered = try pool.render(
            TestImages.gradientJPEG(width: 300, height: 200), variants: Self.variants, settings: Self.settings)
        #expect(rendered.facts.size == PixelSize(width: 300, height: 200))
    }

    @Test("a render worker holds little more than the decoded picture: libvips' line caches stay a few rows deep")
    func workerImagingMemory() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        let pool = WorkerPool(settings: WorkerPool.Settings(for: DecodeLimits(), executable: executable, workers: 1))
        defer { pool.shutdown() }
        // A 12-megapixel camera-sized source, decoded to 2560x1920 for the full-size variant.
        let rendered = try pool.render(
            TestImages.gradientJPEG(width: 4032, height: 3024), variants: Self.variants, settings: Self.settings)
        let full = try Self.variant("full", of: rendered)
        #expect(full.size == PixelSize(width: 2560, height: 1920))
        let picture = full.size.width * full.size.height * 3
        // The thumbnails and a few rows of region buffers (the picture is in the worker's render
        // buffer, which libvips does not count), among them the window of small_thumb's Lanczos3,
        // 6 x 16 + 1 = 97 rows of the 2560-pixel-wide picture it is resized from (0.75 MB).
        // Through vips_resize, whose buffers hold more than vips_reduce's for the same pixels,
        // this was 7.9 MB; 5.6 MB when small_thumb was resized from large_thumb. With libvips'
        // default tile height its two line caches along a sequential decode also held 2 x 512
        // rows of the 4032-pixel-wide source: 12 MB more.
        #expect(pool.imagingPeakBytes > 0)
        #expect(pool.imagingPeakBytes < picture / 2, "libvips held \(pool.imagingPeakBytes) bytes at its peak")
    }

    /// Camera-sized sources of three shapes, each decoded to a picture of 13 to 15 MB.
    static let cameraSizedSources: [(width: Int, height: Int)] = [
        (4032, 3024), (3024, 4032), (4272, 2848), (4032, 3024),
    ]

    @Test("a render worker's malloc heap stays under one and a half decoded pictures, source after source")
    func workerHeapAcrossSources() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        let pool = WorkerPool(settings: WorkerPool.Settings(for: DecodeLimits(), executable: executable, workers: 1))
        defer { pool.shutdown() }
        for (index, size) in Self.cameraSizedSources.enumerated() {
            _ = try pool.render(
                TestImages.gradientJPEG(width: size.width, height: size.height, seed: index),
                variants: Self.variants, settings: Self.settings)
        }
        // The picture, then the coefficients of its encode, live in one buffer the worker keeps:
        // malloc holds the sources, thumbnails, encoded files and region buffers (18 MB). Given
        // back to malloc after each image, the picture and the coefficients left holes the next
        // image's could not reuse, and the heap grew to over twice a picture (33 MB).
        let picture = 2560 * 1920 * 3
        let footprint = pool.mallocPeakBytes
        try #require(footprint > 0, "the worker reports what malloc holds (glibc)")
        #expect(footprint < picture + picture / 2, "malloc held \(footprint) bytes")
    }

    @Test("a render worker gives back the memory of a WebP decoded whole: malloc keeps no 16-megapixel frame")
    func workerHeapAfterWebP() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        let pool = WorkerPool(settings: WorkerPool.Settings(for: DecodeLimits(), executable: executable, workers: 1))
        defer { pool.shutdown() }
        // libvips' WebP loader decodes the whole 4608x3456 frame (48 MB) before any resize; a
        // worker that kept it in its heap held it through every later render, beside the picture.
        let wallpaper = try TestImages.gradient(width: 4608, height: 3456).encoded(as: ".webp[Q=90]")
        let rendered = try pool.render(wallpaper, variants: Self.variants, settings: Self.settings)
        #expect(try Self.variant("full", of: rendered).size == PixelSize(width: 2560, height: 1920))
        // Kept, the frame left malloc holding 135 MB; given back, 25 MB: the sources, thumbnails,
        // encoded files and region buffers, under two pictures.
        let picture = 2560 * 1920 * 3
        let footprint = pool.mallocPeakBytes
        try #require(footprint > 0, "the worker reports what malloc holds (glibc)")
        #expect(footprint < 2 * picture, "malloc held \(footprint) bytes")
    }

    @Test("a render worker reads HEIF through the one libvips module it loads, none of the others")
    func workerLoadsHEIFModule() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        let pool = WorkerPool(settings: WorkerPool.Settings(for: DecodeLimits(), executable: executable, workers: 1))
        defer { pool.shutdown() }
        // Made by libvips' HEIF module in this process, which loads every module.
        let heif = try TestImages.gradient(width: 320, height: 240).encoded(as: ".avif")
        let rendered = try pool.render(heif, variants: Self.variants, settings: Self.settings)
        #expect(rendered.facts.format == "heif")
        #expect(rendered.facts.size == PixelSize(width: 320, height: 240))
        #expect(
            try Image(decoding: Self.variant("full", of: rendered).bytes).size == PixelSize(width: 320, height: 240))
    }

    @Test("a render worker's variants are the bytes the renderer makes in this process, its buffer reused")
    func workerBytesMatchInProcess() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        let pool = WorkerPool(settings: WorkerPool.Settings(for: DecodeLimits(), executable: executable, workers: 1))
        defer { pool.shutdown() }
        // Larger sources first, so that the buffer holds another image's pixels and coefficients
        // when the smaller ones reuse it: nothing of them may show.
        let sources = try [(4032, 3024, 7), (2000, 1500, 8), (1600, 1600, 9)].map {
            try TestImages.gradientJPEG(width: $0.0, height: $0.1, seed: $0.2)
        }
        for source in sources {
            let inWorker = try pool.render(source, variants: Self.variants, settings: Self.settings)
            let here = try Self.render(source)
            #expect(inWorker.variants.map(\.bytes) == here.variants.map(\.bytes))
        }
    }

    @Test("a render worker's start-up does not count against the time limit: only its render does")
    func workerStartNotTimed() throws {
        let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
        // A worker that takes a second to start, as one does on a machine under load.
        let folder = TemporaryDirectory()
        try folder.write("#!/bin/sh\nsleep 1\nexec '\(executable)' \"$@\"\n", to: "slow-start")
        chmod(folder.path("slow-start"), 0o755)
        var settings = WorkerPool.Settings(for: DecodeLimits(), executable: folder.path("slow-start"), workers: 1)
        settings.timeLimit = .milliseconds(500)
        let pool = WorkerPool(settings: settings)
        defer { pool.shutdown() }
        let rendered = try pool.render(
            TestImages.gradientJPEG(width: 300, height: 200), variants: Self.variants, settings: Self.settings)
        #expect(rendered.facts.size == PixelSize(width: 300, height: 200))
    }

    @Test("images declared over the pixel or side limits are refused before decoding")
    func pixelLimits() throws {
        let png = TestImages.pngHeaderOnly(width: 30_000, height: 30_000)
        #expect { try Self.render(png) } throws: { "\($0)".contains("over the limit of 100000000 (limits.maxPixels)") }
        var limits = DecodeLimits()
        limits.maxSide = 300
        let settings = RenderSettings(background: .white, keep: [], limits: limits)
        #expect { try Self.render(TestImages.gradientJPEG(width: 400, height: 300), settings: settings) } throws: {
            error in
            "\(error)".contains("limits.maxSide")
        }
        #expect {
            try Self.render(TestImages.jpegDeclaring(width: 64_250, height: 64_250))
        } throws: { "\($0)".contains("refused before decoding") }
    }

    @Test("a JPEG with thousands of scans is refused by its scan count, before any decoding")
    func scanBomb() throws {
        let bomb = try TestImages.scanBombJPEG(scans: 3000)
        #expect { try Self.render(bomb) } throws: {
            "\($0)".contains("more than 100 scans") && "\($0)".contains("refused before decoding")
        }
    }
}
