public import LadderImaging

/// The settings that apply to every variant of a source.
public struct RenderSettings: Sendable, Hashable, Codable {
    public var background: RGBColor
    public var keep: Set<ExifField>
    /// What the source may be, checked before decoding, and how strictly it is decoded.
    public var limits: DecodeLimits

    public init(background: RGBColor, keep: Set<ExifField>, limits: DecodeLimits = DecodeLimits()) {
        self.background = background
        self.keep = keep
        self.limits = limits
    }
}

/// What rendering one source produced.
public struct RenderedSource: Sendable {
    /// The source's format, as its decoder names it ("jpeg", "png"...).
    public var format: String
    /// The source's size once upright.
    public var size: PixelSize
    /// The EXIF orientation that was applied (1 = none).
    public var orientation: Int
    /// EXIF DateTimeOriginal as ISO 8601, when present.
    public var captured: String?
    /// True when the source had GPS data (the variants never do).
    public var hadGPS: Bool
    public var variants: [RenderedVariant]
}

/// One encoded variant.
public struct RenderedVariant: Sendable {
    public var name: String
    public var size: PixelSize
    public var progressive: Bool
    public var scans: Int
    public var bytes: [UInt8]
}

/// Why a source could not be rendered, in one line.
public struct RenderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
