import Foundation
package import LadderImaging

/// Every default of ladder, defined once: what pipeline.json may leave out, the limits a source
/// and a replayed file are held to, and what the commands' help prints. The configuration, the
/// types' initializers and the help text all read them from here.
package enum Defaults {
    /// Where the variant files go, relative to pipeline.json.
    package static let output = "build/variants"
    /// The manifest's name in the output folder.
    package static let manifestName = "manifest.json"

    /// small_thumb, large_thumb and a 5-scan progressive full-size image whose script is chosen
    /// per image.
    package static let variants: [VariantRecipe] = [
        VariantRecipe(name: "full", maxWidth: 2560, maxHeight: 2560, quality: 85, progressive: .automatic(scans: 5)),
        VariantRecipe(name: "large_thumb", maxWidth: 640, maxHeight: 640, quality: 82),
        VariantRecipe(name: "small_thumb", maxWidth: 160, maxHeight: 160, quality: 80),
    ]

    /// Bytes a replay delivers at a time (`replay.chunkBytes`, `--chunk`).
    package static let chunkBytes = 16_384
    /// The share of a full-size file after which its picture must replace what is on screen
    /// (`replay.firstPaintBudget`, `--first-paint-budget`; docs/SCAN_SCRIPTS.md measures it).
    package static let firstPaintBudget = 0.85
    /// The width of the view pictures are compared in (`replay.displayWidth`, `--display-width`):
    /// a phone's.
    package static let displayWidth = 1280
    /// The rung an app shows before the full-size variant (`replay.firstRung`).
    package static let firstRung: String? = "large_thumb"

    /// Pixels of a source or a replayed file (`limits.maxPixels`); also the pixels rendered at
    /// once by a build's workers.
    package static let maxPixels = 100_000_000
    /// Width or height of a source (`limits.maxSide`).
    package static let maxSide = 30_000
    /// Bands of a source, alpha included (`limits.maxBands`).
    package static let maxBands = 5
    /// Bytes of a source or a variant file (`limits.maxFileBytes`).
    package static let maxFileBytes = 256 << 20
    /// Scans of a progressive JPEG (`limits.maxScans`), and of a scan script.
    package static let maxScans = 100
    /// Seconds one source may take to render (`limits.timeoutSeconds`).
    package static let timeoutSeconds = 30.0

    // MARK: - Format siblings

    /// libaom's effort for AVIF siblings (`avifEffort` of a variant), 0...9, of variants larger
    /// than the thumbnails (`Defaults.siblingProbePixels`): the fastest. There the calibrated
    /// quality is encoded once, and a full-size encode at effort 2 takes 5 to 7 times as long
    /// (docs/BENCHMARKS.md, "Format siblings").
    package static let avifEffort = 0
    /// libaom's effort for the thumbnails' AVIF siblings, whose quality is searched per picture:
    /// at effort 0 (libaom's speed 9) the smallest AVIF as close as the JPEG is 0.86 of the
    /// JPEG's bytes on the corpus' small thumbnails (median), at effort 1 or 2 0.76, and effort
    /// 2's encodes of a thumbnail still cost less than the butteraugli measure of each probe
    /// (`scripts/formats-oracle`, docs/BENCHMARKS.md, "Format siblings").
    package static let avifThumbnailEffort = 2

    /// The default `avifEffort` of a variant whose box holds `pixels`.
    package static func avifEffort(boxPixels pixels: Int) -> Int {
        pixels <= siblingProbePixels ? avifThumbnailEffort : avifEffort
    }

    /// libwebp's effort for WebP siblings, 0...6: less than half the CPU time of libwebp's
    /// default 4 for 3 % more bytes at full size (docs/BENCHMARKS.md, "Format siblings").
    package static let webpEffort = 2
    /// libjxl's effort for JPEG XL recompression, 1...9: libjxl's default. Effort barely
    /// changes the cost of recompressing a JPEG (docs/BENCHMARKS.md, "Format siblings").
    package static let jxlEffort = 7

    /// The largest box (`maxWidth` x `maxHeight`) of a variant whose WebP and AVIF qualities are
    /// searched per picture (`SiblingProbe`): 640 x 640, the large thumbnail. Every probe is
    /// measured by butteraugli, whose cost grows with the pixels; larger variants take the
    /// calibration's quality.
    package static let siblingProbePixels = 640 * 640
    /// Encodes a quality search tries at most, per picture and format.
    package static let siblingProbes = 4
    /// What a searched sibling must beat the JPEG by, as a share of its butteraugli distance and
    /// of SSIM's distance from 1: decoders round color conversion differently (libheif's and
    /// libavif's AVIF decodes of one file differ by up to 1.3 % in butteraugli on flat art).
    package static let siblingMargin = 0.02

    /// The calibration of sibling qualities for variants larger than the thumbnails: for a JPEG
    /// rung of quality `jpeg`, the quality of its WebP and AVIF siblings (between points
    /// linearly, beyond them as at the nearest). At JPEG 85 it is the lowest quality at which
    /// every corpus photo's full-size sibling is as close to the resized picture as its JPEG, by
    /// butteraugli and by SSIM (`scripts/bench --formats --only calibrate --calibrate-variants
    /// full:85`: AVIF 89, WebP 95 for the worst photo). Only that point is measured: a JPEG of
    /// lower quality gets the same (closer than needed), one of higher quality is not checked.
    package static let siblingCalibration: [SiblingFormat: [(jpeg: Int, sibling: Int)]] = [
        .webp: [(85, 95)],
        .avif: [(85, 89)],
    ]

    /// Where the thumbnails' search per picture starts (`SiblingProbe`), by JPEG quality as
    /// `siblingCalibration`: below what most corpus thumbnails need, so that the search steps up
    /// to the picture's own quality.
    package static let siblingSearchStart: [SiblingFormat: [(jpeg: Int, sibling: Int)]] = [
        .webp: [(50, 50), (80, 80), (85, 85), (95, 95)],
        .avif: [(50, 30), (80, 55), (85, 60), (95, 80)],
    ]

    /// The WebP or AVIF quality that matches a JPEG of quality `jpegQuality` by `table`
    /// (`siblingCalibration` or `siblingSearchStart`).
    package static func siblingQuality(
        _ format: SiblingFormat, jpegQuality: Int,
        table: [SiblingFormat: [(jpeg: Int, sibling: Int)]] = siblingCalibration
    ) -> Int {
        guard let points = table[format], let first = points.first, let last = points.last else {
            return jpegQuality
        }
        if jpegQuality <= first.jpeg { return first.sibling }
        if jpegQuality >= last.jpeg { return last.sibling }
        for (low, high) in zip(points, points.dropFirst()) where jpegQuality <= high.jpeg {
            let share = Double(jpegQuality - low.jpeg) / Double(high.jpeg - low.jpeg)
            return min(100, Int((Double(low.sibling) + share * Double(high.sibling - low.sibling)).rounded(.up)))
        }
        return last.sibling
    }

    /// Threads and render workers (`--jobs`): all cores.
    package static var jobs: Int { ProcessInfo.processInfo.activeProcessorCount }
}

extension PipelineConfiguration {
    package static func defaultManifest(output: String) -> String {
        FilePath.join(output, Defaults.manifestName)
    }
}
