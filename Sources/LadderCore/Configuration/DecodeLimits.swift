package import LadderImaging

/// What a source may be before ladder decodes it, and how strictly it is decoded. Every limit is
/// checked before any pixel is decoded (the header, or for JPEG the segment structure, tells).
package struct DecodeLimits: Sendable, Hashable, Codable {
    /// Width x height.
    package var maxPixels: Int
    /// Width or height.
    package var maxSide: Int
    /// Bands, alpha included.
    package var maxBands: Int
    /// Bytes of the source file.
    package var maxFileBytes: Int
    /// Scans of a progressive JPEG, counted by walking its segments.
    package var maxScans: Int
    /// Seconds one source may take; its decoding is then stopped (its worker process is killed).
    package var timeoutSeconds: Double
    /// The formats decoded; anything else is refused.
    package var formats: Set<ImageFormat>
    /// Which decoder complaints refuse a source.
    package var failOn: DecodeStrictness

    package init(
        maxPixels: Int = Defaults.maxPixels, maxSide: Int = Defaults.maxSide, maxBands: Int = Defaults.maxBands,
        maxFileBytes: Int = Defaults.maxFileBytes, maxScans: Int = Defaults.maxScans,
        timeoutSeconds: Double = Defaults.timeoutSeconds, formats: Set<ImageFormat> = Set(ImageFormat.allCases),
        failOn: DecodeStrictness = .warning
    ) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.maxBands = maxBands
        self.maxFileBytes = maxFileBytes
        self.maxScans = maxScans
        self.timeoutSeconds = timeoutSeconds
        self.formats = formats
        self.failOn = failOn
    }

    /// libjpeg's memory limit for one decode (JPEGMEM): enough for a progressive image at the
    /// pixel limit (its coefficients take up to 6 bytes a pixel), so that a bigger one fails
    /// cleanly instead of exhausting memory.
    package var decoderMemoryBytes: Int { max(256 << 20, maxPixels * 8) }

    /// Why a picture of `width` x `height` is over the limits, or nil when it is within them.
    package func sizeProblem(width: Int, height: Int) -> String? {
        guard width <= maxSide, height <= maxSide else {
            return
                "\(width)x\(height) has a side over the limit of \(maxSide) pixels (limits.maxSide); refused before decoding"
        }
        guard width * height <= maxPixels else {
            return
                "\(width)x\(height) is \(width * height) pixels, over the limit of \(maxPixels) (limits.maxPixels); refused before decoding"
        }
        return nil
    }
}
