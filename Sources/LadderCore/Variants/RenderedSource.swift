package import LadderImaging
package import LadderManifest

/// The settings that apply to every variant of a source.
package struct RenderSettings: Sendable, Hashable, Codable {
    package var background: RGBColor
    package var keep: Set<ExifField>
    /// What the source may be, checked before decoding, and how strictly it is decoded.
    package var limits: DecodeLimits

    package init(background: RGBColor, keep: Set<ExifField>, limits: DecodeLimits = DecodeLimits()) {
        self.background = background
        self.keep = keep
        self.limits = limits
    }
}

/// What rendering one source produced.
package struct RenderedSource: Sendable {
    /// What the decoder found out about the source.
    package var facts: SourceFacts
    package var variants: [RenderedVariant]
}

/// What decoding a source tells about it: what the manifest records, and what a designer
/// should know before uploading it (`ladder check`).
package struct SourceFacts: Sendable, Equatable, Codable {
    /// The source's format, as its decoder names it ("jpeg", "png"...).
    package var format: String
    /// The source's size once upright.
    package var size: PixelSize
    /// The EXIF orientation that was applied (1 = none).
    package var orientation: Int
    /// EXIF DateTimeOriginal as ISO 8601, when present.
    package var captured: String?
    /// True when the source had GPS data (the variants never do).
    package var hadGPS: Bool
    /// The position its GPS tags hold, when they hold one.
    package var gpsPosition: GPSPosition?
    /// libvips' name for the color space: "srgb", "cmyk", "b-w", "rgb16"...
    package var colorSpace: String
    /// True when some pixel of the source is less than opaque (the variants are flattened on
    /// the background color); an alpha channel that is opaque everywhere does not count.
    package var isTransparent: Bool
    /// Pages or animation frames (only the first is used).
    package var pages: Int
    /// The embedded ICC profile's name, when it has one.
    package var profileName: String?
    /// True when the embedded profile's gamut reaches beyond sRGB's.
    package var wideGamut: Bool
    /// The metadata fields besides GPS that name a person or a place, or identify the camera,
    /// by their names in their standards ("EXIF Artist", "IPTC City", "XMP dc:creator"), never
    /// their values; the variants carry none of them unless `metadata.keep` names them (and
    /// those kept are left out here).
    package var personalMetadata: [String]
    /// The placeholder and average colour, made from the smallest picture rendered.
    package var placeholder: Placeholder?

    package init(
        format: String, size: PixelSize, orientation: Int = 1, captured: String? = nil, hadGPS: Bool = false,
        colorSpace: String = "srgb", isTransparent: Bool = false, pages: Int = 1, profileName: String? = nil,
        wideGamut: Bool = false, personalMetadata: [String] = [], gpsPosition: GPSPosition? = nil
    ) {
        self.gpsPosition = gpsPosition
        self.format = format
        self.size = size
        self.orientation = orientation
        self.captured = captured
        self.hadGPS = hadGPS
        self.colorSpace = colorSpace
        self.isTransparent = isTransparent
        self.pages = pages
        self.profileName = profileName
        self.wideGamut = wideGamut
        self.personalMetadata = personalMetadata
    }

    /// The facts a header gives; personal metadata that `keep` carries into the variants is
    /// left out.
    init(_ header: ImageHeader, isTransparent: Bool, keeping keep: Set<ExifField>) {
        let profile = header.iccProfile.flatMap(ColorProfile.init(iccData:))
        self.init(
            format: header.format, size: header.size, orientation: header.orientation,
            captured: header.exif?.captureDate, hadGPS: header.exif?.hasGPS ?? false, colorSpace: header.colorSpace,
            isTransparent: isTransparent, pages: header.pageCount, profileName: profile?.name,
            wideGamut: profile?.isWideGamut ?? false, personalMetadata: Self.personalFields(header, keeping: keep),
            gpsPosition: header.exif?.gpsPosition ?? header.xmp?.gpsPosition)
    }

    /// The fields of a header's EXIF, IPTC and XMP that name people or places or identify the
    /// camera, and hold a value. Maker notes are not among them: what they hold is the camera
    /// maker's secret, and the variants never carry them.
    static func personalFields(_ header: ImageHeader, keeping keep: Set<ExifField>) -> [String] {
        var fields: [String] = []
        if let exif = header.exif {
            for tag in exif.personalTags where tag != .makerNotes && !(tag == .artist && keep.contains(.artist)) {
                fields.append(tag.label)
            }
            if exif.fields[.copyright] != nil, !keep.contains(.copyright) { fields.append("EXIF Copyright") }
        }
        fields += header.iptc?.personalFieldNames ?? []
        fields += header.xmp?.personalFieldNames ?? []
        return fields
    }
}

/// One encoded variant.
package struct RenderedVariant: Sendable {
    package var name: String
    package var size: PixelSize
    package var progressive: Bool
    package var scans: Int
    package var bytes: [UInt8]
    /// The scan script of a progressive file, as the manifest records it.
    package var script: ScanScript? = nil
    /// What it would take to meet the first-picture budget, when the chosen script does not.
    package var budgetAdvice: String? = nil
    /// The format siblings made, in `SiblingFormat` order.
    package var siblings: [RenderedSibling] = []
    /// The formats the recipe asks for whose sibling was not smaller than the JPEG at equal
    /// quality, so not kept.
    package var skippedSiblings: [SiblingFormat] = []
}

/// Why a source could not be rendered, in one line.
package struct RenderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    /// False when the failure says nothing about the source (a render worker could not start):
    /// the source is then tried again by the next build, whatever its content.
    package var concernsTheSource: Bool

    package init(_ reason: String, concernsTheSource: Bool = true) {
        self.reason = reason
        self.concernsTheSource = concernsTheSource
    }

    package var description: String { reason }
}
