import LadderImaging

/// Under `decoding.failOn: "warning"`, reads every JPEG source to its end of image and refuses
/// it when libjpeg warns on the way.
///
/// libvips stops reading a JPEG once it has the rows it needs, so damage that libjpeg only
/// notices at the next marker (flipped bytes mid-file: "Corrupt JPEG data: N extraneous bytes
/// before marker") passes its fail-on-warning check, and the variants come out with garbage
/// blocks. Reading the entropy-coded data again, keeping nothing, costs a fraction of a decode;
/// docs/BENCHMARKS.md has the figure.
///
/// Files of several scans (progressive, or sequential with a scan per component) need it too,
/// although libjpeg reads them to their end of image before the first row (jdapistd.c,
/// jpeg_start_decompress) and so raises every warning while libvips decodes: libvips 8.14 sees
/// the warning, but its tile cache blacks out the failed strip and stops the computation without
/// reporting an error (tilecache.c, "error in tile"), so the decode still returns a picture
/// (StrictJPEGTests shows both).
package enum StrictJPEGCheck {
    /// Throws when `bytes` is a JPEG whose entropy-coded data libjpeg warns about. Other formats,
    /// and other strictness levels, pass untouched.
    package static func check(_ bytes: [UInt8], limits: DecodeLimits) throws(RenderFailure) {
        guard limits.failOn == .warning, case .format(.jpeg) = ImageFormat.sniff(bytes) else { return }
        let read: JPEGEntropyRead
        do {
            read = try JPEGEntropyRead(reading: bytes, memoryLimit: limits.decoderMemoryBytes)
        } catch {
            throw RenderFailure("decode JPEG: \(error.reason)")
        }
        guard read.warnings == 0 else {
            let count = read.warnings == 1 ? "a warning" : "\(read.warnings) warnings"
            throw RenderFailure(
                "damaged JPEG data: libjpeg raised \(count) reading to the end of the image (\(read.lastWarning ?? "no text")); refused under decoding.failOn \"warning\""
            )
        }
    }
}
