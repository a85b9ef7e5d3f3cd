package import LadderImaging

/// How close a decoded picture is to the resized picture its rung was encoded from, by the two
/// measures the format siblings are held to (docs/PIPELINE.md, "Format siblings").
package struct Closeness: Sendable, Equatable {
    /// Butteraugli's 3-norm (libjxl, `Butteraugli.Distance.norm3`): 0 for the same picture,
    /// larger for a worse one.
    package var butteraugli: Double
    /// SSIM on Rec. 601 luma (`ImageQuality.ssim`): 1 for the same picture, smaller for a worse
    /// one.
    package var ssim: Double

    package init(butteraugli: Double, ssim: Double) {
        self.butteraugli = butteraugli
        self.ssim = ssim
    }

    /// At least as close to the picture as `other` by both measures, with `margin` to spare:
    /// butteraugli and SSIM's distance from 1 that much smaller (a share), so that what another
    /// decoder shows, whose color conversion rounds otherwise, holds too.
    package func isAtLeastAsClose(as other: Closeness, margin: Double = 0) -> Bool {
        butteraugli <= other.butteraugli * (1 - margin) && 1 - ssim <= (1 - other.ssim) * (1 - margin)
    }
}

/// The resized picture a rung and its siblings are encoded from, ready to measure encodes of
/// it against: in sRGB and in luma, made once.
package struct ProbeReference {
    let picture: Image
    let luma: [UInt8]

    package init(_ picture: Image) throws(ImagingError) {
        self.picture = try Self.comparable(picture)
        luma = try self.picture.decodedPixels().luma()
    }

    /// How close the picture `encoded` decodes to (a JPEG, WebP or AVIF file of the picture's
    /// size) is to the picture.
    package func closeness(of encoded: [UInt8]) throws(ImagingError) -> Closeness {
        let decoded = try Self.comparable(Image(decoding: encoded))
        let distance = try Butteraugli.distance(picture, decoded)
        let ssim = ImageQuality.ssim(
            try decoded.decodedPixels().luma(), reference: luma, width: picture.width, height: picture.height)
        return Closeness(butteraugli: distance.norm3, ssim: ssim)
    }

    /// 8-bit, 3-band sRGB in memory: a grayscale rung and a sibling a decoder gives in color are
    /// compared in one form.
    static func comparable(_ image: Image) throws(ImagingError) -> Image {
        var image = try image.inDisplaySpace()
        if image.bands == 1 { image = try image.converted(to: .sRGB) }
        return try image.inMemory()
    }
}

/// The search for a sibling's quality on one picture: the lowest quality, among a few tried,
/// whose encode is at least as close to the picture as the JPEG rung by both measures (with
/// `Defaults.siblingMargin` to spare) and smaller than the JPEG. It starts at the calibration's quality and steps down while the
/// encode holds and up while it does not, then halves the gap between the highest quality that
/// failed and the lowest that held, `Defaults.siblingProbes` encodes in all. Closeness and bytes
/// are taken to grow with quality, so an encode that is not as close and already not smaller
/// than the JPEG ends the search: no higher quality can be both.
package struct SiblingProbe {
    /// What one search found: the encode kept (nil when none held), and the qualities tried.
    package struct Outcome: Sendable, Equatable {
        package var kept: (quality: Int, bytes: [UInt8])?
        package var tried: [Int]

        package static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            lhs.kept?.quality == rhs.kept?.quality && lhs.kept?.bytes == rhs.kept?.bytes && lhs.tried == rhs.tried
        }
    }

    /// How close the JPEG rung is to the picture, and its size in bytes.
    package let jpeg: Closeness
    package let jpegBytes: Int
    /// The encodes to try at most.
    package let probes: Int
    /// The first step away from the starting quality.
    package let step: Int

    package init(jpeg: Closeness, jpegBytes: Int, probes: Int = Defaults.siblingProbes, step: Int = 10) {
        self.jpeg = jpeg
        self.jpegBytes = jpegBytes
        self.probes = probes
        self.step = step
    }

    /// Searches from `start`, with `encode` making a file at a quality and `measure` saying how
    /// close it is.
    package func search(
        from start: Int, encode: (Int) throws(ImagingError) -> [UInt8],
        measure: ([UInt8]) throws(ImagingError) -> Closeness
    ) throws(ImagingError) -> Outcome {
        var outcome = Outcome(kept: nil, tried: [])
        // The lowest quality found as close as the JPEG (smaller or not), the highest found not.
        var lowestHolding: Int?
        var highestFailing: Int?
        var quality = min(100, max(1, start))
        while outcome.tried.count < probes {
            outcome.tried.append(quality)
            let bytes = try encode(quality)
            let smaller = bytes.count < jpegBytes
            if try measure(bytes).isAtLeastAsClose(as: jpeg, margin: Defaults.siblingMargin) {
                lowestHolding = min(lowestHolding ?? quality, quality)
                if smaller, outcome.kept.map({ quality < $0.quality }) ?? true { outcome.kept = (quality, bytes) }
            } else {
                if !smaller { break }
                highestFailing = max(highestFailing ?? quality, quality)
            }
            let next: Int
            switch (lowestHolding, highestFailing) {
            case (let held?, let failed?): next = (held + failed) / 2
            case (let held?, nil): next = held - step
            case (nil, let failed?): next = failed + step
            case (nil, nil): return outcome
            }
            let bounded = min(100, max(1, next))
            if outcome.tried.contains(bounded) || highestFailing.map({ bounded <= $0 }) ?? false
                || lowestHolding.map({ bounded >= $0 }) ?? false
            {
                break
            }
            quality = bounded
        }
        return outcome
    }
}
