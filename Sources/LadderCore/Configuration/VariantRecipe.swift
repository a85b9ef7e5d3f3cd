package import LadderImaging

/// How one variant is made: the box it fits in, and how it is encoded.
package struct VariantRecipe: Sendable, Hashable, Codable {
    /// The variant's name, also used in its file name: letters, digits, "_" and "-".
    package var name: String
    package var maxWidth: Int
    package var maxHeight: Int
    /// JPEG quality, 1...100.
    package var quality: Int
    package var chroma: ChromaSubsampling
    /// The progressive scan scripts, or nil for a baseline JPEG.
    package var progressive: ProgressiveScripts?
    /// The siblings written beside the JPEG rung, in `SiblingFormat` order, each once.
    package var formats: [SiblingFormat]
    /// libaom's effort for AVIF siblings, 0...9 (by default `Defaults.avifEffort(boxPixels:)`).
    package var avifEffort: Int

    package init(
        name: String, maxWidth: Int, maxHeight: Int, quality: Int, chroma: ChromaSubsampling = .auto,
        progressive: ProgressiveScripts? = nil, formats: [SiblingFormat] = [], avifEffort: Int? = nil
    ) {
        self.name = name
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.quality = quality
        self.chroma = chroma
        self.progressive = progressive
        self.formats = Set(formats).sorted()
        self.avifEffort = avifEffort ?? Defaults.avifEffort(boxPixels: maxWidth * maxHeight)
    }

    /// The settings each sibling of this variant is encoded with.
    package func siblingEncoding(_ format: SiblingFormat) -> SiblingEncoding {
        SiblingEncoding(
            format: format, jpegQuality: quality, fullChroma: chroma.isFull(quality: quality), avifEffort: avifEffort,
            probes: maxWidth * maxHeight <= Defaults.siblingProbePixels)
    }

    /// The box the variant fits in.
    package var box: PixelSize { PixelSize(width: maxWidth, height: maxHeight) }

    /// The size of this variant for a source of `size` (upright): fitted inside the box keeping
    /// the aspect ratio, never larger than the source, never smaller than 1 pixel a side.
    package func size(for size: PixelSize) -> PixelSize {
        VariantGeometry.fit(size, inside: box)
    }

    /// The size a source of `size` (upright) is decoded to for `recipes`: the largest of their
    /// variants, measured by its scale, or the source's own size when there are none.
    package static func decodeSize(for recipes: [VariantRecipe], source size: PixelSize) -> PixelSize {
        recipes.map { $0.size(for: size) }.max { $0.width * size.height < $1.width * size.height } ?? size
    }

    /// The encoder settings for an image with `components` color components (1 or 3).
    package func encoding(components: Int, exif: [UInt8]?) -> JPEGEncoding {
        JPEGEncoding(
            quality: quality, fullChroma: chroma.isFull(quality: quality),
            scans: progressive.map { components == 1 ? $0.grayscale.scans : $0.color.scans } ?? [],
            exif: exif)
    }

    /// The number of scans the variant's file has for an image with `components` components.
    package func scanCount(components: Int) -> Int {
        guard let progressive else { return 1 }
        return components == 1 ? progressive.grayscale.scans.count : progressive.color.scans.count
    }
}

/// Chroma subsampling of color JPEGs.
package enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable, Codable {
    /// 4:4:4 from quality 90 up, 4:2:0 below (as libvips does).
    case auto
    case quarter = "4:2:0"
    case full = "4:4:4"

    func isFull(quality: Int) -> Bool {
        switch self {
        case .auto: quality >= 90
        case .quarter: false
        case .full: true
        }
    }
}

/// The scan scripts of a progressive variant: one for color images, one for grayscale ones,
/// with the same number of scans, or (`"script": "auto"`) one chosen per image.
package struct ProgressiveScripts: Sendable, Hashable, Codable {
    /// The fixed scripts; with `automatic`, what `ladder replay --compare` calls the fixed script.
    package var color: ScanScript
    package var grayscale: ScanScript
    /// Set when each image gets the script that shows it best (`ScanScriptChooser`).
    package var automatic: AutomaticScript?

    /// How `"script": "auto"` chooses.
    package struct AutomaticScript: Sendable, Hashable, Codable {
        /// The largest share of the file after which its picture may replace what is on screen
        /// (replay.firstPaintBudget, so that what the build makes passes `ladder verify --replay`).
        package var firstPictureBudget: Double
        /// Whether pipeline.json set the budget: the build warns only then when it cannot be met.
        package var budgetIsSet: Bool
        /// The width of the view pictures are compared in (replay.displayWidth).
        package var displayWidth: Int
        /// The variant on screen before this one (replay.firstRung), nil for none.
        package var firstRung: String?

        package init(
            firstPictureBudget: Double, budgetIsSet: Bool = false, displayWidth: Int = Defaults.displayWidth,
            firstRung: String? = Defaults.firstRung
        ) {
            self.firstPictureBudget = firstPictureBudget
            self.budgetIsSet = budgetIsSet
            self.displayWidth = displayWidth
            self.firstRung = firstRung
        }
    }

    package init(color: ScanScript, grayscale: ScanScript, automatic: AutomaticScript? = nil) {
        self.color = color
        self.grayscale = grayscale
        self.automatic = automatic
    }

    /// The recommended 5-scan scripts, fixed.
    package static let recommended = ProgressiveScripts(
        color: .recommendedColor, grayscale: .recommendedGrayscale)

    /// A script chosen per image among `scans`-scan candidates (nil when fewer than 4 scans
    /// cannot carry a color image); the fixed fallbacks are the recommended scripts for 5 scans,
    /// else the first candidate.
    package static func automatic(
        scans: Int, firstPictureBudget: Double = ReplaySettings().firstPaintBudget
    )
        -> ProgressiveScripts?
    {
        func fixed(_ recommended: ScanScript, components: Int) -> ScanScript? {
            scans == recommended.scans.count
                ? recommended : ScanScriptCandidates.all(scans: scans, components: components).first
        }
        guard let color = fixed(.recommendedColor, components: 3),
            let grayscale = fixed(.recommendedGrayscale, components: 1)
        else { return nil }
        return ProgressiveScripts(
            color: color, grayscale: grayscale, automatic: AutomaticScript(firstPictureBudget: firstPictureBudget))
    }

    /// The fixed script for an image with `components` components.
    package func fixed(components: Int) -> ScanScript { components == 1 ? grayscale : color }

    /// The number of scans every file of the variant has.
    package var scanCount: Int { color.scans.count }
}

/// Fitting sizes into boxes, with integer arithmetic so that every platform gets the same sizes.
package enum VariantGeometry {
    /// `size` scaled to fit inside `box`, keeping the aspect ratio (rounded to the nearest
    /// pixel), never upscaled.
    package static func fit(_ size: PixelSize, inside box: PixelSize) -> PixelSize {
        let width = max(1, size.width)
        let height = max(1, size.height)
        if width <= box.width && height <= box.height { return PixelSize(width: width, height: height) }
        // Width-limited when width / box.width >= height / box.height.
        if width * box.height >= height * box.width {
            return PixelSize(width: box.width, height: max(1, (height * box.width * 2 + width) / (width * 2)))
        }
        return PixelSize(width: max(1, (width * box.height * 2 + height) / (height * 2)), height: box.height)
    }
}
