import Foundation
package import LadderImaging

/// How close the picture on a screen is to the final picture, in colour, at the size it is
/// shown: the measure the scan-script choice, `ladder verify --replay` and `ladder replay` share.
///
/// - **What is shown.** An app shows a picture in a view `displayWidth` pixels wide (a phone's,
///   1280 by default): the full-size variant scaled down to that width (never up), and any
///   other rung stretched to the same size, both by bilinear filtering as a GPU samples a
///   texture (`BilinearScaling`). Each picture is decoded as libjpeg decodes it for showing
///   (block smoothing on, chroma upsampled by libjpeg), kept in JPEG's own YCbCr, and each plane
///   is scaled on its own.
/// - **The measure** is multi-scale SSIM (Wang, Simoncelli and Bovik, "Multiscale structural
///   similarity for image quality assessment", Asilomar 2003) of each of the Y, Cb and Cr
///   planes against the final picture's, weighted 0.8, 0.1 and 0.1 as Wang, Lu and Bovik weight
///   them for colour ("Video quality assessment based on structural distortion measurement",
///   Signal Processing: Image Communication 19(2), 2004). Each plane is measured at the view's
///   scale and at `scaleWeights.count - 1` halvings of it (2 x 2 means, rounded to 8 bits): the
///   contrast-structure term of every scale but the coarsest, and the whole SSIM of the
///   coarsest (`ImageQuality.structure`), each raised to the paper's exponent for that scale,
///   multiplied. The paper's five scales need a view of 176 pixels a side; the scan-script
///   chooser measures tiles of a sample of the image, so the measure keeps its three finest,
///   their exponents (0.0448, 0.2856, 0.3001) scaled to sum to 1. SSIM at one scale judged
///   either too fine a detail (pixel by pixel of a 1280-pixel view, revision 6: the choice kept
///   luma's fine texture before colour and coarse structure) or too coarse a one (averaged over
///   squares of 3 or 4 pixels of the view, as Wang's `ssim.m` does for its size, revision 7: a
///   block of a 2560-pixel image then nearly became one pixel, and luma's first AC
///   coefficients hardly counted); with equal weights for the planes, colour outweighed luma's
///   detail (docs/SCAN_SCRIPTS.md). A grayscale picture is measured on its one plane. The tests
///   hold the measure to a reference implementation (`scripts/reference/ssim_reference.py`).
package enum ScreenQuality {
    /// The weights of the Y, Cb and Cr planes (Wang, Lu and Bovik 2004).
    package static let planeWeights = [0.8, 0.1, 0.1]

    /// Multi-scale SSIM's exponents for its three finest scales (Wang, Simoncelli and Bovik
    /// 2003: 0.0448, 0.2856, 0.3001, 0.2363, 0.1333 from the finest), made to sum to 1.
    package static let scaleWeights: [Double] = {
        let published = [0.0448, 0.2856, 0.3001]
        let total = published.reduce(0, +)
        return published.map { $0 / total }
    }()

    /// How many view pixels a side one pixel of the coarsest scale averages: 4.
    package static var coarsestScale: Int { 1 << (scaleWeights.count - 1) }

    /// The view width pictures are compared at unless `replay.displayWidth` says otherwise: a
    /// phone held upright shows a full-width picture on about 1080 to 1290 pixels.
    package static let defaultDisplayWidth = 1280

    /// The size a picture of `size` is shown at in a view `displayWidth` wide: scaled down to
    /// that width keeping its aspect ratio (rounded, at least 1 pixel), never up.
    package static func displaySize(of size: PixelSize, displayWidth: Int) -> PixelSize {
        guard size.width > displayWidth, displayWidth > 0 else { return size }
        let height = max(1, (size.height * displayWidth * 2 + size.width) / (size.width * 2))
        return PixelSize(width: displayWidth, height: height)
    }

    /// `planes` of `width` x `height` with each `factor` x `factor` square of pixels from the
    /// top left replaced by its mean (rounded half up; a last partial row or column is dropped,
    /// as an average pool does), and the new size.
    package static func pooled(
        _ planes: [[UInt8]], width: Int, height: Int, factor: Int
    ) -> (planes: [[UInt8]], width: Int, height: Int) {
        guard factor > 1 else { return (planes, width, height) }
        let (pooledWidth, pooledHeight) = pooledSize(width: width, height: height, factor: factor)
        let (across, down) = (min(factor, width), min(factor, height))
        let count = across * down
        let pooled = planes.map { plane in
            [UInt8](unsafeUninitializedCapacity: pooledWidth * pooledHeight) { target, written in
                plane.withUnsafeBufferPointer { source in
                    var sums = [Int](repeating: 0, count: pooledWidth)
                    for row in 0..<pooledHeight {
                        for column in 0..<pooledWidth { sums[column] = 0 }
                        for y in (row * factor)..<(row * factor + down) {
                            let line = y * width
                            for column in 0..<pooledWidth {
                                var sum = 0
                                let start = line + column * factor
                                for x in start..<(start + across) { sum += Int(source[x]) }
                                sums[column] += sum
                            }
                        }
                        for column in 0..<pooledWidth {
                            target[row * pooledWidth + column] = UInt8((sums[column] + count / 2) / count)
                        }
                    }
                }
                written = pooledWidth * pooledHeight
            }
        }
        return (pooled, pooledWidth, pooledHeight)
    }

    /// The size of a `width` x `height` plane `pooled` by `factor`.
    package static func pooledSize(width: Int, height: Int, factor: Int) -> (width: Int, height: Int) {
        factor > 1 ? (max(1, width / factor), max(1, height / factor)) : (width, height)
    }

    /// The measure of each picture against `reference`, all shown in a view of `display`.
    package static func measure(_ pictures: [[[UInt8]]], reference: [[UInt8]], shownAt display: PixelSize) -> [Double] {
        measure(pictures, reference: reference, width: display.width, height: display.height)
    }

    /// The planes a decoded picture is measured on: Y, Cb and Cr for a YCbCr or RGB picture
    /// (RGB converted with JPEG's full-range BT.601 equations), the one plane of a grayscale
    /// one, luma alone for others.
    package static func planes(of pixels: DecodedPixels) -> [[UInt8]] {
        switch pixels.colorModel {
        case .grayscale:
            return [pixels.samples]
        case .yCbCr:
            return deinterleaved(pixels.samples, count: pixels.width * pixels.height)
        case .rgb:
            return yCbCr(fromRGB: pixels.samples, count: pixels.width * pixels.height)
        case .cmyk:
            return [pixels.luma()]
        }
    }

    /// `planes` of a `width` x `height` picture scaled to `size`, bilinearly, each on its own.
    package static func scaled(_ planes: [[UInt8]], width: Int, height: Int, to size: PixelSize) -> [[UInt8]] {
        planes.map { BilinearScaling.scaled($0, width: width, height: height, to: size) }
    }

    /// A decoded picture as shown at `size`: its planes, scaled.
    package static func shown(_ pixels: DecodedPixels, at size: PixelSize) -> [[UInt8]] {
        scaled(planes(of: pixels), width: pixels.width, height: pixels.height, to: size)
    }

    /// The measure of each picture against `reference`, all planes of `width` x `height`: the
    /// weighted sum over the planes of their multi-scale SSIM (one plane: its multi-scale SSIM).
    /// Each scale measures every picture in one pass (`ImageQuality.structure`). A picture with
    /// fewer planes than the reference is measured on luma alone.
    package static func measure(
        _ pictures: [[[UInt8]]], reference: [[UInt8]], width: Int, height: Int
    ) -> [Double] {
        guard !pictures.isEmpty else { return [] }
        let colour = reference.count == 3 && pictures.allSatisfy { $0.count == 3 }
        let weights = colour ? planeWeights : [1]
        var totals = [Double](repeating: 0, count: pictures.count)
        for (plane, weight) in weights.enumerated() {
            let values = multiScale(
                pictures.map { $0[plane] }, reference: reference[plane], width: width, height: height)
            for index in totals.indices { totals[index] += weight * values[index] }
        }
        return totals
    }

    /// Multi-scale SSIM of each plane against `reference` over the scales of `scaleWeights`:
    /// the product of each scale's contrast-structure term (the coarsest's whole SSIM), below 0
    /// taken as 0, raised to its exponent; each next scale the 2 x 2 means of the last
    /// (`pooled`, factor 2).
    package static func multiScale(_ pictures: [[UInt8]], reference: [UInt8], width: Int, height: Int) -> [Double] {
        var planes = [reference] + pictures
        var (width, height) = (width, height)
        var products = [Double](repeating: 1, count: pictures.count)
        for (scale, exponent) in scaleWeights.enumerated() {
            let coarsest = scale == scaleWeights.count - 1
            let values = ImageQuality.structure(
                Array(planes.dropFirst()), reference: planes[0], width: width, height: height)
            for index in products.indices {
                let term = coarsest ? values[index].ssim : values[index].contrastStructure
                products[index] *= pow(max(0, term), exponent)
            }
            guard !coarsest else { break }
            (planes, width, height) = pooled(planes, width: width, height: height, factor: 2)
        }
        return products
    }

    static func deinterleaved(_ samples: [UInt8], count: Int) -> [[UInt8]] {
        (0..<3).map { plane in
            [UInt8](unsafeUninitializedCapacity: count) { target, written in
                samples.withUnsafeBufferPointer { source in
                    for index in 0..<count { target[index] = source[index * 3 + plane] }
                }
                written = count
            }
        }
    }

    /// Full-range BT.601 (JPEG's) RGB to YCbCr, rounded, as libjpeg's color converter does.
    static func yCbCr(fromRGB samples: [UInt8], count: Int) -> [[UInt8]] {
        var (y, cb, cr) = (
            [UInt8](repeating: 0, count: count), [UInt8](repeating: 0, count: count),
            [UInt8](repeating: 0, count: count)
        )
        for index in 0..<count {
            let (r, g, b) = (Int(samples[index * 3]), Int(samples[index * 3 + 1]), Int(samples[index * 3 + 2]))
            // 16.16 fixed point, with libjpeg's constants (jccolor.c).
            y[index] = UInt8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16)
            cb[index] = UInt8(clamping: (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16)
            cr[index] = UInt8(clamping: (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16)
        }
        return [y, cb, cr]
    }
}

/// What the screen shows while a full-size file downloads: the rung an app shows first (if
/// any) until a picture of the file is closer to the final picture, then the closest picture
/// of the file received so far (an app replaces the picture on screen only with a better one,
/// as `LadderTimeline` does).
package struct ScreenTimeline: Sendable, Equatable {
    /// One picture of the file: the byte count after which it can show, and its `ScreenQuality`.
    package struct Paint: Sendable, Equatable {
        package var offset: Int
        package var quality: Double

        package init(offset: Int, quality: Double) {
            self.offset = offset
            self.quality = quality
        }
    }

    /// The file's length.
    package var bytes: Int
    /// The pictures of the file, in order of their offsets.
    package var paints: [Paint]
    /// The `ScreenQuality` of the rung on screen before any picture of the file, nil when
    /// there is none (the screen is blank, counted as 0).
    package var firstRung: Double?

    package init(bytes: Int, paints: [Paint], firstRung: Double?) {
        self.bytes = bytes
        self.paints = paints.sorted { $0.offset < $1.offset }
        self.firstRung = firstRung
    }

    /// The index of the first picture of the file that shows: the first closer to the final
    /// picture than the first rung, or the first of all when there is no first rung.
    package var firstShownIndex: Int? {
        paints.firstIndex { paint in firstRung.map { paint.quality > $0 } ?? true }
    }

    /// The byte count after which the file's picture replaces what is on screen.
    package var fullShownOffset: Int? { firstShownIndex.map { paints[$0].offset } }

    /// `fullShownOffset` as a share of the file.
    package var fullShownShare: Double? {
        fullShownOffset.map { bytes > 0 ? Double($0) / Double(bytes) : 0 }
    }

    /// The mean, over b = 1 … N bytes of the file, of the quality of what is on screen once b
    /// bytes have arrived: the first rung's (0 without one) until a picture of the file beats
    /// it, then the best picture of the file so far.
    package var meanOnScreen: Double {
        guard bytes > 0 else { return 0 }
        var best = firstRung ?? 0
        var total = 0.0
        var from = 1
        for paint in paints where paint.offset <= bytes {
            let start = max(1, paint.offset)
            if start > from { total += best * Double(start - from) }
            from = max(from, start)
            best = max(best, paint.quality)
        }
        total += best * Double(bytes + 1 - from)
        return total / Double(bytes)
    }
}
