import Foundation
import LadderImaging
import Synchronization

/// Renders one source at a time in this process, so that libvips' process-wide error buffer
/// and warnings belong to that source: without this, two images decoded at once could swap
/// their error messages, and a damaged file could pass for a sound one.
///
/// Only render workers use it, for the one source they hold: builds and checks always render
/// in workers (`WorkerPool`); tests of the renderer itself call it directly.
///
/// It never changes which libvips loaders may run: that is process-wide, and fixed once when a
/// render worker starts (`RenderWorker`). Formats left out of `decoding.formats` are refused
/// here by name, from the header, before anything is decoded.
package struct ExclusiveRenderer: SourceRendering {
    /// Held while rendering.
    private static let lock = Mutex<Void>(())

    let renderer: VariantRenderer

    package init(renderer: VariantRenderer = VariantRenderer()) {
        self.renderer = renderer
    }

    package func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        var source = bytes
        return try render(releasing: &source, variants: variants, settings: settings)
    }

    /// Renders as `render(_:variants:settings:)` does, letting go of the source's bytes once
    /// they are decoded (`VariantRenderer.render(releasing:variants:settings:)`).
    package func render(
        releasing bytes: inout [UInt8], variants: [VariantRecipe], settings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        let outcome = Self.lock.withLock { _ in
            Imaging.collectingWarnings { () -> Result<RenderedSource, RenderFailure> in
                do throws(RenderFailure) {
                    return .success(try renderer.render(releasing: &bytes, variants: variants, settings: settings))
                } catch {
                    return .failure(error)
                }
            }
        }
        let (result, warnings) = outcome
        let rendered: RenderedSource
        do {
            rendered = try result.get()
        } catch {
            // Some decoders (libpng) report why they stopped only as warnings.
            let damage = warnings.filter(DecoderWarnings.indicatesDamage)
            if error.reason.hasSuffix(VariantRenderer.noDetail), let first = damage.first ?? warnings.first {
                throw RenderFailure(error.reason.replacingOccurrences(of: VariantRenderer.noDetail, with: first))
            }
            throw error
        }

        if settings.limits.failOn == .warning, let damage = DecoderWarnings.damage(in: warnings) {
            throw RenderFailure("decoder warning: \(damage)")
        }
        return rendered
    }
}

/// Which libvips warnings mean the file is damaged, as opposed to notes about metadata.
enum DecoderWarnings {
    /// Phrases of libjpeg, libpng, libtiff, libwebp, giflib and libheif damage reports.
    static let damagePhrases = [
        "corrupt", "premature end", "truncat", "read gave", "extraneous bytes", "huffman", "crc error",
        "bad adler", "invalid", "unexpected end", "short read", "not enough data",
    ]

    static func indicatesDamage(_ message: String) -> Bool {
        let lowered = message.lowercased()
        return damagePhrases.contains { lowered.contains($0) }
    }

    /// The most telling damage warning: libjpeg's own message rather than libvips' count of them.
    static func damage(in warnings: [String]) -> String? {
        let damaging = warnings.filter(indicatesDamage)
        return damaging.first { !$0.lowercased().hasPrefix("read gave") } ?? damaging.first
    }
}
