import Foundation
import LadderImaging
import LadderManifest

/// The checks on a variant's format siblings (`formats` of its manifest entry): each file is
/// there with the recorded byte count and SHA-256, is the format it claims, declares the rung's
/// width and height within the recipe's box and the decode limits, and decodes. A JPEG XL
/// sibling must rebuild exactly the JPEG rung the manifest records (the SHA-256 of the rebuilt
/// file equals the rung's).
///
/// Siblings are untrusted input, like every file verify reads. A file is read only up to the
/// size limit; WebP and AVIF headers are read by libvips' own loaders for those formats (the
/// file's signature is checked first) and decoded only when their declared size is the rung's
/// and within the limits; JPEG XL is read by libjxl directly (libvips marks its JPEG XL loader
/// untrusted), with the size checked before decoding and every allocation counted against the
/// decoder memory limit. As for the rungs, a file is decoded fully only when its SHA-256 cannot
/// vouch for it, or with `deep`; a JPEG XL sibling is always rebuilt, since that is the check
/// its SHA-256 cannot make (that it rebuilds the rung).
struct SiblingCheck {
    let recipe: VariantRecipe
    /// The rung's manifest entry, whose `formats` are checked.
    let rung: Manifest.VariantEntry
    let image: String
    /// The image phase it is part of: the limits, `--deep`, and how files are found and read.
    let phase: ImagePhase

    private var limits: DecodeLimits { phase.configuration.limits }
    private var deep: Bool { phase.deep }

    func problems() -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        for name in (rung.formats ?? [:]).keys.sorted() {
            guard let sibling = rung.formats?[name] else { continue }
            let label = phase.label(sibling.path)
            func problem(_ kind: ProblemKind, _ message: String) {
                problems.append(VerificationProblem(path: label, kind: kind, message: message, image: image))
            }
            guard let relative = phase.relative(sibling.path) else {
                problem(.unsafePath, "the path lies outside the output folder \(phase.outputLabel)")
                continue
            }
            guard let format = SiblingFormat(rawValue: name), recipe.formats.contains(format) else {
                let asked = recipe.formats.isEmpty ? "none" : recipe.formats.map(\.rawValue).joined(separator: ", ")
                problem(
                    .unknownFormat,
                    "the manifest lists a \(name) sibling, but pipeline.json's \(recipe.name) asks for \(asked)")
                continue
            }
            guard let bytes = phase.read(relative, label: label, recorded: sibling.bytes, problem: problem) else {
                continue
            }
            check(bytes, format: format, sibling: sibling, problem: problem)
        }
        return problems
    }

    private func check(
        _ bytes: [UInt8], format: SiblingFormat, sibling: Manifest.FormatEntry, problem: (ProblemKind, String) -> Void
    ) {
        if bytes.count != sibling.bytes {
            problem(.size, "the file has \(bytes.count) bytes, the manifest says \(sibling.bytes)")
        }
        let digest = Checksum.hex(.sha256, of: bytes)
        if digest != sibling.sha256 {
            problem(
                .checksum, "SHA-256 \(digest.prefix(16))… differs from the manifest's \(sibling.sha256.prefix(16))…")
        }
        let intact = bytes.count == sibling.bytes && digest == sibling.sha256
        guard let claimed = Self.signatureProblem(bytes, format: format) else {
            if format == .jxl {
                checkJPEGXL(bytes, intact: intact, problem: problem)
            } else {
                checkPicture(bytes, format: format, intact: intact, problem: problem)
            }
            return
        }
        problem(.siblingUndecodable, claimed)
    }

    /// WebP and AVIF: the header through libvips' loader for the format, then the pixels.
    private func checkPicture(
        _ bytes: [UInt8], format: SiblingFormat, intact: Bool, problem: (ProblemKind, String) -> Void
    ) {
        let header: ImageHeader
        do {
            header = try ImageHeader(reading: bytes)
        } catch {
            problem(.siblingUndecodable, "not a readable \(format.rawValue.uppercased()) file: \(error.reason)")
            return
        }
        guard sizeHolds(header.storedSize, problem: problem) else { return }
        guard deep || !intact else { return }
        do {
            let picture = try Image(decoding: bytes)
            if picture.size != header.storedSize {
                problem(
                    .siblingDimensions,
                    "the decoder gives \(picture.width)x\(picture.height), the header says \(header.storedSize.width)x\(header.storedSize.height)"
                )
            }
        } catch {
            problem(.siblingUndecodable, error.reason)
        }
    }

    /// JPEG XL: the JPEG it rebuilds must be the rung's, byte for byte; with `deep` (or when the
    /// file is not the recorded one) its pixels are decoded too.
    private func checkJPEGXL(_ bytes: [UInt8], intact: Bool, problem: (ProblemKind, String) -> Void) {
        let jxlLimits = JPEGXL.Limits(
            maxPixels: limits.maxPixels, maxSide: limits.maxSide, maxMemoryBytes: limits.decoderMemoryBytes,
            maxOutputBytes: limits.maxFileBytes)
        do {
            let (jpeg, size) = try JPEGXL.reconstructedJPEG(from: bytes, limits: jxlLimits)
            guard sizeHolds(size, problem: problem) else { return }
            let rebuilt = Checksum.hex(.sha256, of: jpeg)
            if rebuilt != rung.sha256 {
                problem(
                    .jxlReconstruction,
                    "the JPEG it rebuilds (\(jpeg.count) bytes, SHA-256 \(rebuilt.prefix(16))…) is not the rung the manifest records (\(rung.bytes) bytes, SHA-256 \(rung.sha256.prefix(16))…)"
                )
            }
            if deep || !intact { _ = try JPEGXL.decodedSize(of: bytes, limits: jxlLimits) }
        } catch {
            problem(.siblingUndecodable, error.reason)
        }
    }

    /// The declared size must be the rung's, inside the recipe's box and within the limits;
    /// false when the file must not be decoded.
    private func sizeHolds(_ size: PixelSize, problem: (ProblemKind, String) -> Void) -> Bool {
        var holds = true
        if let reason = limits.sizeProblem(width: size.width, height: size.height) {
            problem(.overLimits, reason + "; not decoded")
            holds = false
        }
        if size.width > recipe.maxWidth || size.height > recipe.maxHeight {
            problem(
                .tooLarge,
                "\(size.width)x\(size.height) does not fit the \(recipe.maxWidth)x\(recipe.maxHeight) box; not decoded")
            holds = false
        }
        if size.width != rung.width || size.height != rung.height {
            problem(
                .siblingDimensions,
                "the image is \(size.width)x\(size.height), its JPEG rung \(rung.width)x\(rung.height)")
        }
        return holds
    }

    /// Why the bytes are not a file of `format`, by their signature; nil when they are.
    static func signatureProblem(_ bytes: [UInt8], format: SiblingFormat) -> String? {
        let sniffed = ImageFormat.sniff(bytes)
        switch format {
        case .webp:
            if sniffed == .format(.webp) { return nil }
        case .avif:
            if sniffed == .format(.heif), bytes.count >= 12,
                ["avif", "avis"].contains(String(decoding: bytes[8..<12], as: UTF8.self))
            {
                return nil
            }
        case .jxl:
            if sniffed == .other("a JPEG XL image") { return nil }
        }
        let found: String
        switch sniffed {
        case .format(let other): found = "a \(other.rawValue.uppercased()) file"
        case .other(let description): found = description
        case .unknown: found = "nothing ladder recognises"
        }
        return "not a \(format.rawValue.uppercased()) file: the content is \(found)"
    }
}
