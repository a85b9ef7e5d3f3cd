internal import CLadderJPEG

/// 8-bit pixels in memory, interleaved, rows top to bottom.
package struct DecodedPixels: Sendable, Equatable {
    /// What the samples mean.
    package enum ColorModel: Sendable, Equatable {
        case grayscale
        case rgb
        /// JPEG's YCbCr (full-range BT.601), as the decoder produces it before color conversion.
        case yCbCr
        case cmyk

        /// From libjpeg's J_COLOR_SPACE value.
        init(libjpeg value: Int32, components: Int) {
            switch value {
            case 1: self = .grayscale
            case 3: self = .yCbCr
            case 4, 5: self = .cmyk
            default: self = components == 1 ? .grayscale : .rgb
            }
        }
    }

    package var width: Int
    package var height: Int
    /// 1 (grayscale), 3 (RGB or YCbCr) or 4 (CMYK).
    package var components: Int
    package var colorModel: ColorModel
    package var samples: [UInt8]

    package init(width: Int, height: Int, components: Int, colorModel: ColorModel? = nil, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.components = components
        self.colorModel = colorModel ?? (components == 1 ? .grayscale : components == 4 ? .cmyk : .rgb)
        self.samples = samples
    }

    /// What libjpeg renders a YCbCr file as (LADDER_OUTPUT_*): the Y plane alone, RGB, or the
    /// samples as stored; `lumaOnly` wins.
    static func output(lumaOnly: Bool, rgb: Bool) -> Int32 {
        Int32(lumaOnly ? LADDER_OUTPUT_LUMA : rgb ? LADDER_OUTPUT_RGB : LADDER_OUTPUT_STORED)
    }

    /// Decodes a whole JPEG in one pass with libjpeg-turbo: what a viewer given the complete
    /// file shows (Wraps jpeg_read_scanlines() over the whole image). With `lumaOnly`, a YCbCr
    /// file decodes to its Y plane alone (grayscale pixels), at about half the cost; with
    /// `rgb`, to RGB, converted by libjpeg.
    package init(decodingJPEG bytes: [UInt8], lumaOnly: Bool = false, rgb: Bool = false) throws(ImagingError) {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        var components: Int32 = 0
        var colorSpace: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { buffer in
            ladder_jpeg_decode_as(
                buffer.baseAddress!, buffer.count,
                Self.output(lumaOnly: lumaOnly, rgb: rgb),
                &pixels, &width, &height, &components,
                &colorSpace, &message, message.count)
        }
        guard status == 0, let pixels else {
            throw ImagingError(operation: "decode JPEG", path: nil, reason: cString(message))
        }
        defer { Platform.free(pixels) }
        let count = Int(width) * Int(height) * Int(components)
        self.init(
            width: Int(width), height: Int(height), components: Int(components),
            colorModel: ColorModel(libjpeg: colorSpace, components: Int(components)),
            samples: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    /// The luma plane, which quality measures compare: the plane the eye judges sharpness by.
    /// For YCbCr it is the decoder's own Y; grayscale is its own luma; RGB uses Rec. 601
    /// weights; CMYK the mean of its inverted channels.
    package func luma() -> [UInt8] {
        switch colorModel {
        case .grayscale:
            return samples
        case .yCbCr:
            var plane = [UInt8](repeating: 0, count: width * height)
            samples.withUnsafeBufferPointer { source in
                plane.withUnsafeMutableBufferPointer { target in
                    for index in 0..<target.count { target[index] = source[index * 3] }
                }
            }
            return plane

        case .rgb:
            var plane = [UInt8](repeating: 0, count: width * height)
            samples.withUnsafeBufferPointer { source in
                plane.withUnsafeMutableBufferPointer { target in
                    for index in 0..<(width * height) {
                        let r = Int(source[index * 3])
                        let g = Int(source[index * 3 + 1])
                        let b = Int(source[index * 3 + 2])
                        // 0.299, 0.587, 0.114 in 16-bit fixed point, rounded.
                        target[index] = UInt8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16)
                    }
                }
            }
            return plane
        default:
            var plane = [UInt8](repeating: 0, count: width * height)
            for index in 0..<(width * height) {
                var sum = 0
                for channel in 0..<components { sum += Int(samples[index * components + channel]) }
                plane[index] = UInt8(255 - sum / components)
            }
            return plane
        }
    }

    /// The same picture as RGB (or grayscale), for showing: YCbCr is converted with JPEG's
    /// full-range BT.601 equations, CMYK naively.
    package func displayable() -> DecodedPixels {
        switch colorModel {
        case .grayscale, .rgb:
            return self
        case .yCbCr:
            return DecodedPixels(
                width: width, height: height, components: 3, colorModel: .rgb, samples: Self.rgb(fromYCbCr: samples))
        case .cmyk:
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            for pixel in 0..<(width * height) {
                let k = 255 - Double(samples[pixel * 4 + 3])
                for channel in 0..<3 {
                    rgb[pixel * 3 + channel] = clampToByte((255 - Double(samples[pixel * 4 + channel])) * k / 255)
                }
            }
            return DecodedPixels(width: width, height: height, components: 3, colorModel: .rgb, samples: rgb)
        }
    }
}

extension DecodedPixels {
    /// Interleaved YCbCr to interleaved RGB with JPEG's full-range BT.601 equations, in 16.16
    /// fixed point, rounded, as libjpeg's own color converter does; eight pixels at a time in
    /// `SIMD8<Int32>` lanes.
    static func rgb(fromYCbCr samples: [UInt8]) -> [UInt8] {
        typealias Lanes = SIMD8<Int32>
        let pixels = samples.count / 3
        var rgb = [UInt8](repeating: 0, count: samples.count)
        let half = Lanes(repeating: 1 << 15)
        let centre = Lanes(repeating: 128)
        let (zero, full) = (Lanes(repeating: 0), Lanes(repeating: 255))
        samples.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                @inline(__always) func convert(_ y: Lanes, _ cb: Lanes, _ cr: Lanes) -> (Lanes, Lanes, Lanes) {
                    let luma = y &<< 16
                    let r = (luma &+ 91_881 &* cr &+ half) &>> 16
                    let g = (luma &- 22_554 &* cb &- 46_802 &* cr &+ half) &>> 16
                    let b = (luma &+ 116_130 &* cb &+ half) &>> 16
                    return (
                        r.clamped(lowerBound: zero, upperBound: full), g.clamped(lowerBound: zero, upperBound: full),
                        b.clamped(lowerBound: zero, upperBound: full)
                    )
                }
                var pixel = 0
                var y = Lanes()
                var cb = Lanes()
                var cr = Lanes()
                while pixel + 8 <= pixels {
                    let base = pixel * 3
                    for lane in 0..<8 {
                        y[lane] = Int32(source[base + lane * 3])
                        cb[lane] = Int32(source[base + lane * 3 + 1])
                        cr[lane] = Int32(source[base + lane * 3 + 2])
                    }
                    let (r, g, b) = convert(y, cb &- centre, cr &- centre)
                    for lane in 0..<8 {
                        target[base + lane * 3] = UInt8(truncatingIfNeeded: r[lane])
                        target[base + lane * 3 + 1] = UInt8(truncatingIfNeeded: g[lane])
                        target[base + lane * 3 + 2] = UInt8(truncatingIfNeeded: b[lane])
                    }
                    pixel += 8
                }
                // The last few pixels, one lane each.
                while pixel < pixels {
                    let base = pixel * 3
                    let (r, g, b) = convert(
                        Lanes(repeating: Int32(source[base])), Lanes(repeating: Int32(source[base + 1])) &- centre,
                        Lanes(repeating: Int32(source[base + 2])) &- centre)
                    target[base] = UInt8(truncatingIfNeeded: r[0])
                    target[base + 1] = UInt8(truncatingIfNeeded: g[0])
                    target[base + 2] = UInt8(truncatingIfNeeded: b[0])
                    pixel += 1
                }
            }
        }
        return rgb
    }
}

private func clampToByte(_ value: Double) -> UInt8 {
    UInt8(max(0, min(255, value.rounded())))
}

package func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
