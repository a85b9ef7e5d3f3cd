internal import CLadder
internal import CVips
import Foundation
import Synchronization

/// The lossy format siblings of a JPEG rung, encoded with libvips' own savers from the same
/// resized picture: WebP (webpsave, libwebp) and AVIF (heifsave with AV1, libheif and libaom).
/// Both are written without metadata (`strip`): the picture is untagged sRGB already.
extension Image {
    /// Encodes as lossy WebP at `quality` (1...100) with libwebp's `effort` (0...6).
    package func webpEncoded(quality: Int, effort: Int) throws(ImagingError) -> [UInt8] {
        try encoded(as: ".webp[Q=\(quality),effort=\(effort),strip]")
    }

    /// Encodes as AVIF: 8-bit AV1 in HEIF with libaom at `quality` (1...100) and `effort`
    /// (0...9, libaom's speed 9 - effort), with 4:4:4 chroma when `fullChroma`, else 4:2:0.
    package func avifEncoded(quality: Int, effort: Int, fullChroma: Bool) throws(ImagingError) -> [UInt8] {
        try Imaging.loadHEIFModule()
        let subsampling = fullChroma ? "off" : "on"
        return try encoded(
            as:
                ".heif[compression=av1,encoder=aom,Q=\(quality),effort=\(effort),bitdepth=8,subsample-mode=\(subsampling),strip]"
        )
    }
}

extension Imaging {
    /// The formats `allowLoaders(_:)` last allowed, to apply again to loaders that a module
    /// loaded later registers.
    static let allowedLoaders = Mutex<Set<ImageFormat>?>(nil)

    /// Makes libvips' HEIF module (its AVIF saver and loader) available in a process that started
    /// without it (a render worker whose sources may not be HEIF still encodes AVIF siblings).
    /// The loader policy set by `allowLoaders(_:)` is applied again, so the module's loader stays
    /// blocked unless HEIF decoding is allowed.
    static func loadHEIFModule() throws(ImagingError) {
        guard vips_type_find("VipsOperation", "heifsave_buffer") == 0 else { return }
        if let library = ladder_libvips_path() {
            let module = URL(fileURLWithPath: String(cString: library)).deletingLastPathComponent()
                .appendingPathComponent("vips-modules-\(vips_version(0)).\(vips_version(1))/vips-heif.so").path
            if let loaded = g_module_open(module, G_MODULE_BIND_LAZY) { g_module_make_resident(loaded) }
        }
        guard vips_type_find("VipsOperation", "heifsave_buffer") != 0 else {
            throw ImagingError(
                operation: "encode AVIF", path: nil,
                reason: "libvips has no HEIF saver here (its heif module, with libheif, is not installed)")
        }
        if let formats = allowedLoaders.withLock({ $0 }) { allowLoaders(formats) }
    }
}
