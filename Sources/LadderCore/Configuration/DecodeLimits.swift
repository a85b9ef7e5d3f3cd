public import LadderImaging

/// What a source may be before ladder decodes it, and how strictly it is decoded. Every limit is
/// checked before any pixel is decoded (the header, or for JPEG the segment structure, tells).
public struct DecodeLimits: Sendable, Hashable, Codable {
    /// Width x height.
    public var maxPixels: Int
    /// Width or height.
    public var maxSide: Int
    /// Bands, alpha included.
    public var maxBands: Int
    /// Bytes of the source file.
    public var maxFileBytes: Int
    /// Scans of a progressive JPEG, counted by walking its segments.
    public var maxScans: Int
    /// Seconds one source may take; its decoding is then stopped (its worker process is killed).
    public var timeoutSeconds: Double
    /// The formats decoded; anything else is refused.
    public var formats: Set<ImageFormat>
    /// Which decoder complaints refuse a source.
    public var failOn: DecodeStrictness

    public init(
        maxPixels: Int = 100_000_000, maxSide: Int = 30_000, maxBands: Int = 5, maxFileBytes: Int = 256 << 20,
        maxScans: Int = 100, timeoutSeconds: Double = 30, formats: Set<ImageFormat> = Set(ImageFormat.allCases),
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
    public var decoderMemoryBytes: Int { max(256 << 20, maxPixels * 8) }
}
