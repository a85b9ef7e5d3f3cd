#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How close a picture is to a reference, on 8-bit luma planes of the same size, rows top to
/// bottom.
public enum ImageQuality {
    /// PSNR reported for identical pictures (the contract asks for 99 or more).
    public static let identicalPSNR = 99.0

    /// Peak signal-to-noise ratio in dB, capped at `identicalPSNR`.
    public static func psnr(_ picture: [UInt8], reference: [UInt8]) -> Double {
        precondition(picture.count == reference.count, "planes of different sizes")
        guard !picture.isEmpty else { return identicalPSNR }
        var sum: UInt64 = 0
        picture.withUnsafeBufferPointer { a in
            reference.withUnsafeBufferPointer { b in
                // Squared differences of 8-bit values fit 32 bits for 65,000 pixels at a time.
                var start = 0
                while start < a.count {
                    let end = min(a.count, start + 65_536)
                    var partial: UInt32 = 0
                    for index in start..<end {
                        let difference = Int32(a[index]) &- Int32(b[index])
                        partial &+= UInt32(bitPattern: difference &* difference)
                    }
                    sum += UInt64(partial)
                    start = end
                }
            }
        }
        guard sum > 0 else { return identicalPSNR }
        let meanSquare = Double(sum) / Double(picture.count)
        return min(identicalPSNR, 10 * log10(255 * 255 / meanSquare))
    }

    /// Structural similarity as Wang, Bovik, Sheikh and Simoncelli define it ("Image quality
    /// assessment: from error visibility to structural similarity", IEEE TIP 2004): means,
    /// variances and covariance under an 11x11 circular-symmetric Gaussian window with σ = 1.5
    /// (normalised to sum 1), K1 = 0.01, K2 = 0.03, L = 255, averaged over every window that lies
    /// wholly inside the plane. 1 means identical; it can fall below 0.
    ///
    /// This is what scikit-image's `structural_similarity(..., gaussian_weights=True, sigma=1.5,
    /// use_sample_covariance=False, data_range=255)` computes. Planes narrower or shorter than
    /// the window are compared as one window with equal weights.
    public static func ssim(_ picture: [UInt8], reference: [UInt8], width: Int, height: Int) -> Double {
        ssim([picture], reference: reference, width: width, height: height)[0]
    }

    /// SSIM of each picture against one reference, in one pass over the planes: the
    /// reference's own statistics are computed once. Faster than measuring them one by one.
    public static func ssim(_ pictures: [[UInt8]], reference: [UInt8], width: Int, height: Int) -> [Double] {
        for picture in pictures {
            precondition(
                picture.count == reference.count && picture.count == width * height, "planes of different sizes")
        }
        var results = [Double](repeating: 1, count: pictures.count)
        let differing = pictures.indices.filter { pictures[$0] != reference }
        guard !differing.isEmpty else { return results }
        let measured =
            width >= GaussianWindow.size && height >= GaussianWindow.size
            ? GaussianWindow.ssim(differing.map { pictures[$0] }, reference: reference, width: width, height: height)
            : differing.map { wholePlaneSSIM(pictures[$0], reference: reference) }
        for (index, value) in zip(differing, measured) { results[index] = value }
        return results
    }

    /// The SSIM constants (K1 L)² and (K2 L)².
    static let c1 = (0.01 * 255.0) * (0.01 * 255.0)
    static let c2 = (0.03 * 255.0) * (0.03 * 255.0)

    /// SSIM with one window, equal weights, over the whole plane.
    static func wholePlaneSSIM(_ picture: [UInt8], reference: [UInt8]) -> Double {
        let n = Double(picture.count)
        var sums = (a: 0.0, b: 0.0, aa: 0.0, bb: 0.0, ab: 0.0)
        for (a, b) in zip(picture, reference) {
            let (x, y) = (Double(a), Double(b))
            sums = (sums.a + x, sums.b + y, sums.aa + x * x, sums.bb + y * y, sums.ab + x * y)
        }
        let (meanA, meanB) = (sums.a / n, sums.b / n)
        let varianceA = sums.aa / n - meanA * meanA
        let varianceB = sums.bb / n - meanB * meanB
        let covariance = sums.ab / n - meanA * meanB
        return ((2 * meanA * meanB + c1) * (2 * covariance + c2))
            / ((meanA * meanA + meanB * meanB + c1) * (varianceA + varianceB + c2))
    }
}

/// The Gaussian-window SSIM, computed with `SIMD8<Float>` lanes along the rows.
///
/// The window is separable, so every statistic is a horizontal pass over each input row followed
/// by a vertical pass over the last 11 filtered rows, which a ring buffer keeps. Values are
/// centred on 128 before squaring, so that single precision keeps variances accurate to well
/// under 10⁻⁵ of SSIM; each output row is summed in single precision and the rows in double.
enum GaussianWindow {
    static let size = 11
    static let radius = 5
    static let sigma = 1.5

    typealias Lanes = SIMD8<Float>
    static let laneCount = Lanes.scalarCount

    /// The 1-D weights; the 2-D window is their outer product, which sums to 1.
    static let weights: [Float] = {
        let raw = (0..<size).map { exp(-Double(($0 - radius) * ($0 - radius)) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { Float($0 / total) }
    }()

    static func ssim(_ pictures: [[UInt8]], reference: [UInt8], width: Int, height: Int) -> [Double] {
        let outputWidth = width - size + 1
        let outputHeight = height - size + 1
        let paddedWidth = (outputWidth + laneCount - 1) / laneCount * laneCount
        // Input rows hold the statistics' terms before filtering, zero past the plane's edge.
        let rowLength = paddedWidth + size - 1
        // Maps: the reference's x and x², then each picture's y, y² and x·y.
        let maps = 2 + 3 * pictures.count
        let input = UnsafeMutablePointer<Float>.allocate(capacity: maps * rowLength)
        input.initialize(repeating: 0, count: maps * rowLength)
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: maps * size * paddedWidth)
        ring.initialize(repeating: 0, count: maps * size * paddedWidth)
        defer {
            input.deallocate()
            ring.deallocate()
        }
        let w = weights
        let c1 = Float(ImageQuality.c1)
        let c2 = Float(ImageQuality.c2)
        var totals = [Double](repeating: 0, count: pictures.count)
        let planes = [reference] + pictures

        func withPlanes<R>(_ body: ([UnsafePointer<UInt8>]) -> R) -> R {
            var pointers: [UnsafePointer<UInt8>] = []
            func bind(_ index: Int) -> R {
                if index == planes.count { return body(pointers) }
                return planes[index].withUnsafeBufferPointer { buffer in
                    pointers.append(buffer.baseAddress!)
                    return bind(index + 1)
                }
            }
            return bind(0)
        }

        withPlanes { sources in
            for y in 0..<height {
                // The terms of row y.
                let reference = sources[0] + y * width
                let x0 = input
                let xx = input + rowLength
                for column in 0..<width {
                    let value = Float(reference[column]) - 128
                    x0[column] = value
                    xx[column] = value * value
                }
                for picture in 0..<pictures.count {
                    let source = sources[picture + 1] + y * width
                    let y0 = input + (2 + 3 * picture) * rowLength
                    let yy = y0 + rowLength
                    let xy = yy + rowLength
                    for column in 0..<width {
                        let value = Float(source[column]) - 128
                        y0[column] = value
                        yy[column] = value * value
                        xy[column] = value * x0[column]
                    }
                }
                // Horizontal pass into the ring.
                let slot = y % size
                for map in 0..<maps {
                    let from = UnsafeRawPointer(input + map * rowLength)
                    let to = UnsafeMutableRawPointer(ring + (map * size + slot) * paddedWidth)
                    var column = 0
                    while column < paddedWidth {
                        var sum = Lanes(repeating: 0)
                        for tap in 0..<size {
                            sum += w[tap] * from.loadUnaligned(fromByteOffset: (column + tap) * 4, as: Lanes.self)
                        }
                        to.storeBytes(of: sum, toByteOffset: column * 4, as: Lanes.self)
                        column += laneCount
                    }
                }
                guard y >= size - 1 else { continue }

                // Vertical pass: output row y - 10 covers ring rows y - 10 ... y.
                let top = y - (size - 1)
                var rowSums = [Lanes](repeating: Lanes(repeating: 0), count: pictures.count)
                var column = 0
                while column < paddedWidth {
                    func vertical(_ map: Int) -> Lanes {
                        var sum = Lanes(repeating: 0)
                        let base = UnsafeRawPointer(ring + map * size * paddedWidth)
                        for tap in 0..<size {
                            let row = (top + tap) % size
                            sum += w[tap] * base.loadUnaligned(fromByteOffset: (row * paddedWidth + column) * 4, as: Lanes.self)
                        }
                        return sum
                    }
                    let meanX = vertical(0)
                    let varianceX = vertical(1) - meanX * meanX
                    let shiftedX = meanX + 128
                    let remaining = outputWidth - column
                    for picture in 0..<pictures.count {
                        let meanY = vertical(2 + 3 * picture)
                        let varianceY = vertical(3 + 3 * picture) - meanY * meanY
                        let covariance = vertical(4 + 3 * picture) - meanX * meanY
                        let shiftedY = meanY + 128
                        let luminance: Lanes = 2 * shiftedX * shiftedY + c1
                        let structure: Lanes = 2 * covariance + c2
                        let luminanceNorm: Lanes = shiftedX * shiftedX + shiftedY * shiftedY + c1
                        let structureNorm: Lanes = varianceX + varianceY + c2
                        var map: Lanes = (luminance * structure) / (luminanceNorm * structureNorm)
                        if remaining < laneCount {
                            for lane in remaining..<laneCount { map[lane] = 0 }
                        }
                        rowSums[picture] += map
                    }
                    column += laneCount
                }
                for picture in 0..<pictures.count { totals[picture] += Double(rowSums[picture].sum()) }
            }
        }
        let windows = Double(outputWidth * outputHeight)
        return totals.map { $0 / windows }
    }
}
