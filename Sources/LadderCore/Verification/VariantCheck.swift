import LadderImaging
import LadderManifest

/// The checks on one variant file: integrity, shape, scans and metadata.
struct VariantCheck {
    let recipe: VariantRecipe
    let entry: Manifest.VariantEntry
    let bytes: [UInt8]
    let keep: Set<ExifField>
    let label: String
    let image: String

    func problems() -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        func problem(_ kind: String, _ message: String) {
            problems.append(VerificationProblem(path: label, kind: kind, message: message, image: image))
        }
        if bytes.count != entry.bytes {
            problem("size", "the file has \(bytes.count) bytes, the manifest says \(entry.bytes)")
        }
        let digest = Checksum.hex(.sha256, of: bytes)
        if digest != entry.sha256 {
            problem("checksum", "SHA-256 \(digest.prefix(16))… differs from the manifest's \(entry.sha256.prefix(16))…")
        }
        let structure: JPEGStructure
        do {
            structure = try JPEGStructure(parsing: bytes, scanLimit: ScanScript.maximumScans)
        } catch {
            problem("undecodable", "not a readable JPEG: \(error)")
            return problems
        }
        do {
            let pixels = try DecodedPixels(decodingJPEG: bytes)
            if pixels.width != entry.width || pixels.height != entry.height {
                problem(
                    "dimensions",
                    "the image is \(pixels.width)x\(pixels.height), the manifest says \(entry.width)x\(entry.height)")
            }
        } catch {
            problem("undecodable", error.reason)
        }
        if structure.width > recipe.maxWidth || structure.height > recipe.maxHeight {
            problem(
                "too-large",
                "\(structure.width)x\(structure.height) does not fit the \(recipe.maxWidth)x\(recipe.maxHeight) box")
        }
        checkScans(structure, recordedFile: digest == entry.sha256, problem: problem)
        checkMetadata(structure, problem: problem)
        return problems
    }

    /// `recordedFile` is true when the file is the one the manifest recorded (same SHA-256), so
    /// that a disagreement between the manifest and the file is worth its own report.
    private func checkScans(_ structure: JPEGStructure, recordedFile: Bool, problem: (String, String) -> Void) {
        if let progressive = recipe.progressive {
            guard structure.isProgressive else {
                problem(
                    "not-progressive",
                    "a baseline JPEG, but the recipe asks for \(progressive.scanCount) progressive scans")
                return
            }
            if let mismatch = progressive.mismatch(
                structure.scans.map(\.script), components: structure.components.count,
                recorded: recordedFile ? entry.script : nil)
            {
                problem(mismatch.kind, mismatch.message)
            }
        } else if structure.isProgressive {
            problem(
                "not-baseline",
                "a progressive JPEG with \(structure.scans.count) scans, but the recipe asks for a baseline one")
        }
        if recordedFile, entry.scans != structure.scans.count || entry.progressive != structure.isProgressive {
            problem(
                "scan-count",
                "the manifest says \(entry.progressive ? "progressive" : "baseline") with \(entry.scans) scans, the file has \(structure.scans.count)"
            )
        }
    }

    private func checkMetadata(_ structure: JPEGStructure, problem: (String, String) -> Void) {
        for segment in structure.applicationSegments {
            switch (segment.marker, segment.signature) {
            case (0xE0, "JFIF"):
                continue
            case (0xE1, "Exif"):
                let payload = Array(bytes[(segment.offset + 4)..<(segment.offset + segment.length)])
                guard let exif = ExifMetadata(parsing: payload) else { continue }
                if exif.hasGPS { problem("gps", "the EXIF block holds GPS data") }
                if let orientation = exif.orientation, orientation != 1 {
                    problem(
                        "orientation",
                        "EXIF orientation \(orientation): the pixels must be upright and the tag 1 or absent")
                }
                if exif.hasThumbnail { problem("metadata", "the EXIF block holds a thumbnail") }
                let extra = exif.fields.keys.filter { !keep.contains($0) }.map(\.rawValue).sorted()
                if !extra.isEmpty {
                    problem("metadata", "EXIF tags outside metadata.keep: \(extra.joined(separator: ", "))")
                }
            default:
                let name = segment.signature.isEmpty ? "unnamed" : segment.signature
                problem(
                    "metadata", "an APP\(Int(segment.marker) - 0xE0) segment (\(name)) that the metadata policy removes"
                )
            }
        }
    }
}
