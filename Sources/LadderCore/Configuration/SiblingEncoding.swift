package import LadderImaging

/// How one format sibling of a variant is encoded. WebP and AVIF must be at least as close to
/// the resized picture as the JPEG rung, by butteraugli and by SSIM (docs/PIPELINE.md, "Format
/// siblings"): for a variant whose box holds at most `Defaults.siblingProbePixels`, the quality
/// is searched per picture from `Defaults.siblingSearchStart`'s (`SiblingProbe`); for larger
/// ones it is `Defaults.siblingCalibration`'s, measured on the test corpus by scripts/bench.
/// JPEG XL recompresses the JPEG rung losslessly, so it has an effort and no quality.
package struct SiblingEncoding: Sendable, Hashable, Codable {
    package var format: SiblingFormat
    /// WebP's or AVIF's quality, 1...100, or where the search starts when `probes`; 0 for JPEG
    /// XL, which keeps the JPEG's.
    package var quality: Int
    /// WebP and AVIF: the quality is searched per picture (`SiblingProbe`).
    package var probes: Bool
    /// The encoder's effort: libwebp 0...6, libaom 0...9, libjxl 1...9.
    package var effort: Int
    /// AVIF only: 4:4:4 chroma when the JPEG rung has it, else 4:2:0 (WebP is always 4:2:0).
    package var fullChroma: Bool

    package init(
        format: SiblingFormat, jpegQuality: Int, fullChroma: Bool, avifEffort: Int = Defaults.avifEffort,
        probes: Bool = false
    ) {
        self.format = format
        self.fullChroma = format == .avif && fullChroma
        self.probes = probes && format != .jxl
        let table = probes ? Defaults.siblingSearchStart : Defaults.siblingCalibration
        switch format {
        case .webp:
            quality = Defaults.siblingQuality(.webp, jpegQuality: jpegQuality, table: table)
            effort = Defaults.webpEffort
        case .avif:
            quality = Defaults.siblingQuality(.avif, jpegQuality: jpegQuality, table: table)
            effort = avifEffort
        case .jxl:
            quality = 0
            effort = Defaults.jxlEffort
        }
    }

    /// What the recipe fingerprint records of it.
    package var fingerprintLine: String {
        switch format {
        case .webp: "webp q\(quality) effort \(effort)\(probeLine)"
        case .avif: "avif aom q\(quality) effort \(effort) \(fullChroma ? "4:4:4" : "4:2:0") 8-bit\(probeLine)"
        case .jxl: "jxl lossless JPEG recompression effort \(effort)"
        }
    }

    private var probeLine: String {
        probes
            ? ", searched per picture: \(Defaults.siblingProbes) probes, butteraugli 3-norm and SSIM \(Defaults.siblingMargin) better than the JPEG's"
            : ""
    }
}
