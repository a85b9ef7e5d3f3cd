import Foundation
import LadderImaging
import LadderManifest

/// A ThumbHash as a page can paint it without a script: its decoded picture (32 pixels on the
/// longer side, which a browser stretches smoothly over the image's box) as a PNG in a data URL.
enum PlaceholderPicture {
    /// The data URL, or nil when the hash does not decode or libvips cannot write the PNG.
    static func pngDataURL(of hash: ThumbHash) -> String? {
        guard let picture = hash.picture() else { return nil }
        // Opaque pictures (every ladder placeholder: the variants are flattened) drop the alpha
        // channel, a quarter of the samples.
        let opaque = stride(from: 3, to: picture.rgba.count, by: 4).allSatisfy { picture.rgba[$0] == 255 }
        var samples = picture.rgba
        if opaque {
            samples = []
            samples.reserveCapacity(picture.width * picture.height * 3)
            for i in stride(from: 0, to: picture.rgba.count, by: 4) { samples += picture.rgba[i..<(i + 3)] }
        }
        do {
            let image = try Image(
                pixels: samples, width: picture.width, height: picture.height, bands: opaque ? 3 : 4, space: .sRGB)
            // Adaptive row filters halve the PNG of a smooth picture (about 1 KB instead of 2).
            let png = try image.encoded(as: ".png[compression=9,strip,filter=all]")
            return "data:image/png;base64," + Data(png).base64EncodedString()
        } catch {
            return nil
        }
    }
}
