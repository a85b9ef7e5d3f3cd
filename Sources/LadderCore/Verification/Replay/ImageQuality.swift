/// How close a picture is to a reference, on luma planes of the same size.
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
                for index in 0..<a.count {
                    let difference = Int(a[index]) - Int(b[index])
                    sum += UInt64(difference * difference)
                }
            }
        }
        guard sum > 0 else { return identicalPSNR }
        let meanSquare = Double(sum) / Double(picture.count)
        return min(identicalPSNR, 10 * log10(255 * 255 / meanSquare))
    }

    /// Structural similarity (Wang et al. 2004) over 8x8 windows placed every 4 pixels, with the
    /// usual constants; 1 means identical. Planes smaller than a window are compared whole.
    public static func ssim(_ picture: [UInt8], reference: [UInt8], width: Int, height: Int) -> Double {
        precondition(picture.count == reference.count && picture.count == width * height, "planes of different sizes")
        guard picture != reference else { return 1 }
        let window = min(8, width, height)
        let step = max(1, window / 2)
        let c1 = (0.01 * 255) * (0.01 * 255)
        let c2 = (0.03 * 255) * (0.03 * 255)
        var total = 0.0
        var windows = 0
        picture.withUnsafeBufferPointer { a in
            reference.withUnsafeBufferPointer { b in
                var top = 0
                while top + window <= height {
                    var left = 0
                    while left + window <= width {
                        var sumA = 0
                        var sumB = 0
                        var sumAA = 0
                        var sumBB = 0
                        var sumAB = 0
                        for y in top..<(top + window) {
                            let row = y * width
                            for x in left..<(left + window) {
                                let va = Int(a[row + x])
                                let vb = Int(b[row + x])
                                sumA += va
                                sumB += vb
                                sumAA += va * va
                                sumBB += vb * vb
                                sumAB += va * vb
                            }
                        }
                        let n = Double(window * window)
                        let meanA = Double(sumA) / n
                        let meanB = Double(sumB) / n
                        let varianceA = Double(sumAA) / n - meanA * meanA
                        let varianceB = Double(sumBB) / n - meanB * meanB
                        let covariance = Double(sumAB) / n - meanA * meanB
                        total +=
                            ((2 * meanA * meanB + c1) * (2 * covariance + c2))
                            / ((meanA * meanA + meanB * meanB + c1) * (varianceA + varianceB + c2))
                        windows += 1
                        left += step
                    }
                    top += step
                }
            }
        }
        return windows > 0 ? total / Double(windows) : 1
    }
}

#if canImport(Glibc)
    import Glibc
#endif
