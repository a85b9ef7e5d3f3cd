package import LadderImaging

/// Scales an 8-bit plane by bilinear interpolation, as an app's GPU samples a stretched texture
/// (linear filtering, clamped to the edge): output pixel X samples the source at
/// (X + 0.5) · w / W − 0.5, between the two nearest source pixels, in each direction.
///
/// This is how the ladder timeline shows a thumbnail in the full picture's place. libvips does
/// the same with `vips_affine` and its bilinear interpolator (the tests hold this to it within
/// one level), but at about 24 ns per output pixel, a tenth of a second per thumbnail of a
/// 4-megapixel picture; this costs a few milliseconds. Separable: each source row is
/// interpolated horizontally once, when the first output row needs it, and each output row
/// is the blend of two such rows, eight pixels at a time in `SIMD8<Float>` lanes.
package enum BilinearScaling {
    typealias Lanes = SIMD8<Float>
    static let laneCount = Lanes.scalarCount

    /// 2²³: a value from 0 to 255 added to it is rounded to the nearest integer (ties to even),
    /// which is then the low byte of the sum's bit pattern. Far cheaper than a conversion to
    /// integers, which Swift does lane by lane.
    static let roundingMagic: Float = 8_388_608

    /// Where each output position samples a source of `source` pixels along one axis: the two
    /// source indices and the weight of the second.
    struct Taps {
        var first: [Int32]
        var second: [Int32]
        var weight: [Float]

        init(source: Int, target: Int) {
            first = []
            second = []
            weight = []
            first.reserveCapacity(target)
            second.reserveCapacity(target)
            weight.reserveCapacity(target)
            let scale = Double(source) / Double(target)
            for position in 0..<target {
                let at = min(Double(source - 1), max(0, (Double(position) + 0.5) * scale - 0.5))
                let index = Int(at)
                first.append(Int32(index))
                second.append(Int32(min(index + 1, source - 1)))
                weight.append(Float(at - Double(index)))
            }
        }
    }

    /// `plane` (`width` x `height`, rows top to bottom) scaled to `target`.
    package static func scaled(_ plane: [UInt8], width: Int, height: Int, to target: PixelSize) -> [UInt8] {
        precondition(plane.count == width * height && width > 0 && height > 0, "not a plane of that size")
        if target.width == width && target.height == height { return plane }
        let (outputWidth, outputHeight) = (target.width, target.height)
        guard outputWidth > 0, outputHeight > 0 else { return [] }
        let columns = Taps(source: width, target: outputWidth)
        let rows = Taps(source: height, target: outputHeight)
        // Two source rows interpolated horizontally, padded to whole lanes.
        let padded = (outputWidth + laneCount - 1) / laneCount * laneCount
        let buffers = UnsafeMutablePointer<Float>.allocate(capacity: 2 * padded)
        buffers.initialize(repeating: 0, count: 2 * padded)
        defer { buffers.deallocate() }
        var held = (-1, -1)  // The source row in each buffer.

        return [UInt8](unsafeUninitializedCapacity: outputWidth * outputHeight) { output, count in
            plane.withUnsafeBufferPointer { source in
                columns.first.withUnsafeBufferPointer { first in
                    columns.second.withUnsafeBufferPointer { second in
                        columns.weight.withUnsafeBufferPointer { weight in
                            /// Source row `row` interpolated into buffer `slot`.
                            func interpolate(_ row: Int, into slot: Int) {
                                let from = source.baseAddress! + row * width
                                let to = buffers + slot * padded
                                var column = 0
                                while column + laneCount <= outputWidth {
                                    var a = Lanes()
                                    var b = Lanes()
                                    for lane in 0..<laneCount {
                                        a[lane] = Float(from[Int(first[column + lane])])
                                        b[lane] = Float(from[Int(second[column + lane])])
                                    }
                                    let t = UnsafeRawPointer(weight.baseAddress! + column).loadUnaligned(as: Lanes.self)
                                    UnsafeMutableRawPointer(to + column).storeBytes(of: a + t * (b - a), as: Lanes.self)
                                    column += laneCount
                                }
                                while column < outputWidth {
                                    let a = Float(from[Int(first[column])])
                                    let b = Float(from[Int(second[column])])
                                    to[column] = a + weight[column] * (b - a)
                                    column += 1
                                }
                            }
                            /// The buffer holding source row `row`, interpolated if it is not held.
                            func buffer(for row: Int, avoiding other: Int) -> UnsafePointer<Float> {
                                if held.0 == row { return UnsafePointer(buffers) }
                                if held.1 == row { return UnsafePointer(buffers + padded) }
                                // Replace the buffer not holding `other`.
                                let slot = held.0 == other ? 1 : 0
                                interpolate(row, into: slot)
                                if slot == 0 { held.0 = row } else { held.1 = row }
                                return UnsafePointer(buffers + slot * padded)
                            }
                            let magic = Lanes(repeating: roundingMagic)
                            for y in 0..<outputHeight {
                                let (top, bottom) = (Int(rows.first[y]), Int(rows.second[y]))
                                let upper = buffer(for: top, avoiding: bottom)
                                let lower = buffer(for: bottom, avoiding: top)
                                let t = Lanes(repeating: rows.weight[y])
                                let out = output.baseAddress! + y * outputWidth
                                var column = 0
                                while column + laneCount <= outputWidth {
                                    let a = UnsafeRawPointer(upper + column).loadUnaligned(as: Lanes.self)
                                    let b = UnsafeRawPointer(lower + column).loadUnaligned(as: Lanes.self)
                                    let bits = unsafeBitCast(a + t * (b - a) + magic, to: SIMD8<UInt32>.self)
                                    UnsafeMutableRawPointer(out + column).storeBytes(
                                        of: SIMD8<UInt8>(truncatingIfNeeded: bits), as: SIMD8<UInt8>.self)
                                    column += laneCount
                                }
                                while column < outputWidth {
                                    let (a, b) = (upper[column], lower[column])
                                    out[column] = UInt8(
                                        truncatingIfNeeded: (a + rows.weight[y] * (b - a) + roundingMagic).bitPattern)
                                    column += 1
                                }
                            }
                        }
                    }
                }
            }
            count = outputWidth * outputHeight
        }
    }
}
