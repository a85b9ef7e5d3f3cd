internal import CJXL

/// Butteraugli, the perceptual distance libjxl ships (JxlButteraugliCompute, libjxl's defaults:
/// an intensity target of 80 nits, HF asymmetry 1): how far a distorted picture is from its
/// reference as the eye sees it, 0 for identical pictures, about 1 at the threshold of a
/// visible difference, larger for worse. It compares color, not luma alone.
///
/// The format siblings' quality is held to it, with SSIM: a thumbnail's WebP or AVIF sibling is
/// written only when it is at least as close to the resized picture as the JPEG rung is
/// (docs/PIPELINE.md, "Format siblings").
package enum Butteraugli {
    /// The distance between two pictures of one size.
    package struct Distance: Sendable, Equatable {
        /// The largest distance of any pixel: the worst spot.
        package var max: Double
        /// The 3-norm over the distance map (libjxl's "pnorm"): the distance of the picture as a
        /// whole, which weights bad spots more than an average would.
        package var norm3: Double
    }

    /// Compares `distorted` with `reference`: two 8-bit, in-memory images of the same size and
    /// bands (1 for grayscale, 3 for sRGB).
    package static func distance(_ reference: Image, _ distorted: Image) throws(ImagingError) -> Distance {
        guard reference.size == distorted.size, reference.bands == distorted.bands,
            reference.bands == 1 || reference.bands == 3, reference.isEightBit, distorted.isEightBit
        else {
            throw ImagingError(
                operation: "butteraugli", path: nil,
                reason:
                    "expected two 8-bit pictures of one size and 1 or 3 bands, got \(reference.size) with \(reference.bands) and \(distorted.size) with \(distorted.bands)"
            )
        }
        guard let api = JxlButteraugliApiCreate(nil) else {
            throw ImagingError(operation: "butteraugli", path: nil, reason: "libjxl could not start butteraugli")
        }
        defer { JxlButteraugliApiDestroy(api) }
        var format = JxlPixelFormat(
            num_channels: UInt32(reference.bands), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN,
            align: 0)
        let result = try reference.withPixels { original in
            try? distorted.withPixels { other in
                JxlButteraugliCompute(
                    api, UInt32(reference.width), UInt32(reference.height), &format, original.baseAddress,
                    original.count, &format, other.baseAddress, other.count)
            }
        }
        guard let result = result ?? nil else {
            throw ImagingError(operation: "butteraugli", path: nil, reason: "libjxl could not compare the pictures")
        }
        defer { JxlButteraugliResultDestroy(result) }
        return Distance(
            max: Double(JxlButteraugliResultGetMaxDistance(result)),
            norm3: Double(JxlButteraugliResultGetDistance(result, 3)))
    }
}
