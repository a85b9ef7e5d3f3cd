package import LadderImaging
import LadderManifest

/// What an app shows before any variant arrives, as the manifest records it: a ThumbHash of the
/// upright, flattened picture and its mean colour.
package struct Placeholder: Sendable, Equatable, Codable {
    /// The ThumbHash, base64 with padding.
    package var thumbHash: String
    /// The picture's mean colour in sRGB, `#rrggbb`.
    package var averageColor: String

    package init(thumbHash: String, averageColor: String) {
        self.thumbHash = thumbHash
        self.averageColor = averageColor
    }

    /// From the smallest variant's file, as libjpeg decodes it (`PlaceholderInput`): the mean
    /// of its pixels, and a ThumbHash of them fitted inside 100 x 100. Taken from the file rather
    /// than from the picture before encoding, so that `ladder verify` recomputes them from what
    /// apps download; a decode of a thumbnail costs well under a millisecond.
    package init(ofVariant jpeg: [UInt8]) throws(ImagingError) {
        let picture = try PlaceholderInput(decoding: jpeg)
        let small = try picture.thumbHashPicture()
        guard let hash = ThumbHash(encoding: small) else {
            throw ImagingError(
                operation: "placeholder", path: nil, reason: "cannot encode a \(small.width)x\(small.height) picture")
        }
        self.init(thumbHash: hash.base64, averageColor: picture.averageColor.description)
    }
}
