package import LadderImaging
package import LadderManifest

/// What an image's `averageColor` and `placeholder` are made of: its smallest variant file as
/// libjpeg decodes it (integer DCT, fancy upsampling, its own colour conversion). The build
/// takes both from these pixels, and `ladder verify` decodes the same file the same way: it
/// recomputes `averageColor` exactly, and knows the very picture the ThumbHash was made of.
package struct PlaceholderInput: Sendable {
    /// The decoded variant, RGB or grayscale.
    package let pixels: DecodedPixels

    /// Decodes a variant file (a JPEG).
    package init(decoding jpeg: [UInt8]) throws(ImagingError) {
        pixels = try DecodedPixels(decodingJPEG: jpeg, rgb: true).displayable()
    }

    /// The variant of an image's `variants` (name, width, height) that its placeholder is made
    /// of: the one with the fewest pixels, the first by name among equals.
    package static func source<Variant>(
        of variants: [(name: String, width: Int, height: Int, variant: Variant)]
    ) -> (name: String, variant: Variant)? {
        variants.min { ($0.width * $0.height, $0.name) < ($1.width * $1.height, $1.name) }
            .map { ($0.name, $0.variant) }
    }

    /// The sums of the red, green and blue samples over every pixel (grayscale counts as all
    /// three), and the pixel count.
    package var sums: (channels: [Int], pixels: Int) {
        let count = pixels.width * pixels.height
        if pixels.components == 1 {
            let total = pixels.samples.reduce(0) { $0 + Int($1) }
            return ([total, total, total], count)
        }
        return (Self.rgbSums(pixels.samples, pixels: count), count)
    }

    /// The mean colour, each channel's mean rounded to the nearest level (halves up): the
    /// manifest's `averageColor`.
    package var averageColor: RGBColor {
        let (channels, count) = sums
        let levels = channels.map { UInt8(min(255, (2 * $0 + max(1, count)) / (2 * max(1, count)))) }
        return RGBColor(red: levels[0], green: levels[1], blue: levels[2])
    }

    /// The picture the ThumbHash is encoded from: the pixels fitted inside 100 x 100 (the largest
    /// a ThumbHash takes) by libvips' triangle filter, as RGBA. Pixels already inside are taken
    /// as they are, without a libvips image: one would hand back the very same samples, and
    /// making it costs more than the rest of a small thumbnail's checks (`throughLibvips` makes
    /// it all the same, for the tests that hold the two to each other).
    package func thumbHashPicture(throughLibvips: Bool = false) throws(ImagingError) -> ThumbHash.Picture {
        let side = ThumbHash.maxSide
        let scale = min(1, Double(side) / Double(pixels.width), Double(side) / Double(pixels.height))
        let size = PixelSize(
            width: min(side, max(1, Int((Double(pixels.width) * scale).rounded()))),
            height: min(side, max(1, Int((Double(pixels.height) * scale).rounded()))))
        if !throughLibvips, size == PixelSize(width: pixels.width, height: pixels.height) {
            let rgba = pixels.samples.withUnsafeBytes { Self.rgba($0, bands: pixels.components) }
            return ThumbHash.Picture(width: size.width, height: size.height, rgba: rgba)
        }
        // Every image made here is released inside: see `Imaging.reducingAlone`.
        let rgba = try Imaging.reducingAlone { () throws(ImagingError) -> [UInt8] in
            var picture = try pixels.image()
            if picture.size != size { picture = try picture.resized(to: size, with: .triangle).inMemory() }
            let bands = picture.bands
            return try picture.withPixels { raw in Self.rgba(raw, bands: bands) }
        }
        return ThumbHash.Picture(width: size.width, height: size.height, rgba: rgba)
    }

    /// The exact mean of a ThumbHash picture's red, green and blue samples, in levels.
    package static func mean(of picture: ThumbHash.Picture) -> [Double] {
        let count = picture.width * picture.height
        var sums = [0, 0, 0]
        for index in 0..<count {
            for channel in 0..<3 { sums[channel] += Int(picture.rgba[index * 4 + channel]) }
        }
        return sums.map { Double($0) / Double(max(1, count)) }
    }

    /// Widens 8-bit gray or RGB samples to opaque RGBA.
    static func rgba(_ raw: UnsafeRawBufferPointer, bands: Int) -> [UInt8] {
        let count = raw.count / max(1, bands)
        var rgba = [UInt8](repeating: 255, count: count * 4)
        for index in 0..<count {
            let base = index * bands
            rgba[index * 4] = raw[base]
            rgba[index * 4 + 1] = raw[bands >= 3 ? base + 1 : base]
            rgba[index * 4 + 2] = raw[bands >= 3 ? base + 2 : base]
        }
        return rgba
    }

    /// The sums of the red, green and blue samples of the first `count` pixels of interleaved
    /// RGB `samples`. Sixteen pixels are three 16-byte vectors, in which byte `j` is channel
    /// `j % 3`; each vector's lanes are summed in 16-bit lanes for at most 256 blocks (256 x 255
    /// fits), then added to the totals.
    static func rgbSums(_ samples: [UInt8], pixels count: Int) -> [Int] {
        precondition(samples.count >= count * 3)
        var sums = [0, 0, 0]
        let blocks = count / 16
        samples.withUnsafeBytes { raw in
            var done = 0
            while done < blocks {
                let run = min(blocks - done, 256)
                var lanes = (SIMD16<UInt16>.zero, SIMD16<UInt16>.zero, SIMD16<UInt16>.zero)
                for block in done..<(done + run) {
                    let base = block * 48
                    lanes.0 &+= SIMD16(
                        truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: base, as: SIMD16<UInt8>.self))
                    lanes.1 &+= SIMD16(
                        truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: base + 16, as: SIMD16<UInt8>.self))
                    lanes.2 &+= SIMD16(
                        truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: base + 32, as: SIMD16<UInt8>.self))
                }
                for lane in 0..<16 {
                    sums[lane % 3] += Int(lanes.0[lane])
                    sums[(16 + lane) % 3] += Int(lanes.1[lane])
                    sums[(32 + lane) % 3] += Int(lanes.2[lane])
                }
                done += run
            }
            for index in stride(from: blocks * 48, to: count * 3, by: 3) {
                sums[0] += Int(raw[index])
                sums[1] += Int(raw[index + 1])
                sums[2] += Int(raw[index + 2])
            }
        }
        return sums
    }
}
