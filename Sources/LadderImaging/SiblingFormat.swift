/// A format a variant's JPEG rung may have a sibling in: the same picture, at the same width and
/// height, in fewer bytes for the clients that decode it. The JPEG is always made; siblings are
/// extra files beside it (`"formats"` of a variant in pipeline.json).
package enum SiblingFormat: String, CaseIterable, Sendable, Codable, Comparable {
    /// WebP (lossy), encoded from the same resized picture as the JPEG with libvips' webpsave.
    case webp
    /// AVIF: AV1 in HEIF, encoded from the same resized picture with libvips' heifsave and
    /// libaom.
    case avif
    /// JPEG XL: the JPEG rung itself, recompressed losslessly by libjxl; it rebuilds the JPEG
    /// byte for byte.
    case jxl

    /// The file extension of a sibling in this format.
    package var fileExtension: String { rawValue }

    /// The media type servers send it with (`Content-Type`).
    package var mediaType: String { "image/\(rawValue)" }

    package static func < (lhs: SiblingFormat, rhs: SiblingFormat) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
