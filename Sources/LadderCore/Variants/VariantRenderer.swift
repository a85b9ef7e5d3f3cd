import LadderImaging

/// Turns a source's bytes into encoded variants.
public protocol SourceRendering: Sendable {
    /// Renders `variants` of the image in `bytes`.
    func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource
}

/// Renders in this process with libvips and libjpeg-turbo: one decode per source, at the scale
/// the largest requested variant needs; the smaller variants are resized from that decoded image.
public struct VariantRenderer: SourceRendering {
    public init() {}

    public func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        do {
            let header = try ImageHeader(reading: bytes)
            let upright = header.size
            let targets = variants.map { ($0, $0.size(for: upright)) }
            // The decode only needs to be as large as the largest variant, measured by its scale.
            let base =
                targets.map(\.1).max { $0.width * upright.height < $1.width * upright.height }
                ?? upright
            var decoded = try Image.decode(
                bytes, header: header, fitting: base, background: settings.background,
                strictness: settings.strictness)
            if decoded.size != base {
                // libvips rounds after shrink-on-load; make the size exactly what was planned.
                decoded = try decoded.resized(to: base).inMemory()
            }
            let exif = header.exif?.encodedBlock(keeping: settings.keep)
            var rendered: [RenderedVariant] = []
            for (recipe, size) in targets {
                let image = try decoded.resized(to: size)
                let encoding = recipe.encoding(components: image.bands, exif: exif)
                let jpeg = try image.jpegEncoded(encoding)
                rendered.append(
                    RenderedVariant(
                        name: recipe.name, size: size, progressive: recipe.progressive != nil,
                        scans: recipe.scanCount(components: image.bands), bytes: jpeg))
            }
            return RenderedSource(
                format: header.format, size: upright, orientation: header.orientation,
                captured: header.exif?.captureDate, hadGPS: header.exif?.hasGPS ?? false, variants: rendered)
        } catch {
            throw RenderFailure(Self.oneLine(error))
        }
    }

    /// libvips messages span several lines, often repeating themselves; join the distinct ones.
    static func oneLine(_ error: ImagingError) -> String {
        var lines: [String] = []
        for line in error.reason.split(separator: "\n") {
            let text = String(line.trimmingWhitespace())
            if !text.isEmpty && !lines.contains(text) { lines.append(text) }
        }
        return "\(error.operation): \(lines.isEmpty ? error.reason : lines.joined(separator: "; "))"
    }
}
