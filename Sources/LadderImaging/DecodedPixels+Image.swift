package import LadderJPEG

extension DecodedPixels {
    /// An image of these pixels, for resizing and encoding.
    package func image() throws(ImagingError) -> Image {
        let shown = displayable()
        return try Image(
            pixels: shown.samples, width: width, height: height, bands: shown.components,
            space: shown.components == 1 ? .grayscale : .sRGB)
    }
}

extension Image {
    /// The pixels of this in-memory 8-bit image.
    package func decodedPixels() throws(ImagingError) -> DecodedPixels {
        let samples = try withPixels { Array($0) }
        return DecodedPixels(width: width, height: height, components: bands, samples: samples)
    }
}
