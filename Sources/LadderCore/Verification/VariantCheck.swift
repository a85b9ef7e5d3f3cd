import LadderImaging
import LadderManifest

/// The checks on one variant file: integrity, shape, scans and metadata.
///
/// Everything is judged from the bytes' SHA-256 and the segment structure (frame header, scan
/// headers, application segments, end of image), which costs about as much as reading the file.
/// The file is decoded only when that cannot vouch for it: when its size or SHA-256 differs
/// from the manifest's, or always with `deep`. It is never decoded when its header says it is
/// larger than its recipe's box or the decode limits: the verdict is already known, and an
/// untrusted file must not make verify allocate what it declares.
struct VariantCheck {
    let recipe: VariantRecipe
    let entry: Manifest.VariantEntry
    let bytes: [UInt8]
    let keep: Set<ExifField>
    let label: String
    let image: String
    /// The pipeline's decode limits, the same as the build's.
    var limits = DecodeLimits()
    /// Decode the file even when its SHA-256 matches.
    var deep = false
    /// The scan scripts already checked in this run; nil to check each file's.
    var scripts: ScanScriptVerdicts?

    /// What the checks found, and the file's SHA-256.
    struct Outcome {
        var problems: [VerificationProblem]
        var sha256: String
        /// True when the file may be decoded: a JPEG whose header fits the recipe's box and the
        /// limits (replays need it).
        var decodable: Bool
        /// The file's segment structure; nil when it could not be walked.
        var structure: JPEGStructure?
    }

    func problems() -> [VerificationProblem] { check().problems }

    func check() -> Outcome {
        var problems: [VerificationProblem] = []
        func problem(_ kind: ProblemKind, _ message: String) {
            problems.append(VerificationProblem(path: label, kind: kind, message: message, image: image))
        }
        if bytes.count != entry.bytes {
            problem(.size, "the file has \(bytes.count) bytes, the manifest says \(entry.bytes)")
        }
        let digest = Checksum.hex(.sha256, of: bytes)
        if digest != entry.sha256 {
            problem(.checksum, "SHA-256 \(digest.prefix(16))… differs from the manifest's \(entry.sha256.prefix(16))…")
        }
        let intact = bytes.count == entry.bytes && digest == entry.sha256
        let structure: JPEGStructure
        do {
            structure = try JPEGStructure(parsing: bytes, scanLimit: min(limits.maxScans, ScanScript.maximumScans))
        } catch {
            problem(.undecodable, "not a readable JPEG: \(error)")
            return Outcome(problems: problems, sha256: digest, decodable: false, structure: nil)
        }
        if structure.width != entry.width || structure.height != entry.height {
            problem(
                .dimensions,
                "the image is \(structure.width)x\(structure.height), the manifest says \(entry.width)x\(entry.height)")
        }
        let fitsBox = structure.width <= recipe.maxWidth && structure.height <= recipe.maxHeight
        if !fitsBox {
            problem(
                .tooLarge,
                "\(structure.width)x\(structure.height) does not fit the \(recipe.maxWidth)x\(recipe.maxHeight) box; not decoded"
            )
        }
        var withinLimits = true
        if let reason = limits.sizeProblem(width: structure.width, height: structure.height) {
            withinLimits = false
            problem(.overLimits, reason)
        }
        if structure.endOfImage == nil {
            problem(.undecodable, "the file ends before its end-of-image marker (truncated)")
        }
        let decodable = fitsBox && withinLimits
        if decodable && (deep || !intact) {
            decode(structure, problem: problem)
        }
        checkCoding(structure, problem: problem)
        checkScans(structure, recordedFile: digest == entry.sha256, problem: problem)
        checkMetadata(structure, problem: problem)
        return Outcome(problems: problems, sha256: digest, decodable: decodable, structure: structure)
    }

    /// Decodes the file, and reads its entropy-coded data to the end of image counting
    /// libjpeg's warnings (damage a decoder of the pixels alone can pass over).
    private func decode(_ structure: JPEGStructure, problem: (ProblemKind, String) -> Void) {
        do {
            let pixels = try DecodedPixels(decodingJPEG: bytes)
            if pixels.width != structure.width || pixels.height != structure.height {
                problem(
                    .dimensions,
                    "the decoder gives \(pixels.width)x\(pixels.height), the frame header says \(structure.width)x\(structure.height)"
                )
            }
            let read = try JPEGEntropyRead(reading: bytes, memoryLimit: limits.decoderMemoryBytes)
            if read.warnings > 0 {
                problem(
                    .damaged,
                    "libjpeg raised \(read.warnings) warning(s) reading to the end of the image: \(read.lastWarning ?? "no text")"
                )
            }
        } catch {
            problem(.undecodable, error.reason)
        }
    }

    /// Only Huffman coding: arithmetic-coded JPEGs (SOF9 to SOF15) are not shown by browsers,
    /// whatever their scans.
    private func checkCoding(_ structure: JPEGStructure, problem: (ProblemKind, String) -> Void) {
        guard structure.isArithmetic else { return }
        problem(
            .arithmeticCoding,
            "an arithmetic-coded JPEG (SOF\(Int(structure.frameMarker) - 0xC0)): browsers cannot show it; the recipe asks for Huffman coding (SOF\(recipe.progressive == nil ? "0" : "2"))"
        )
    }

    /// `recordedFile` is true when the file is the one the manifest recorded (same SHA-256), so
    /// that a disagreement between the manifest and the file is worth its own report.
    private func checkScans(_ structure: JPEGStructure, recordedFile: Bool, problem: (ProblemKind, String) -> Void) {
        if let progressive = recipe.progressive {
            guard structure.isProgressive else {
                problem(
                    .notProgressive,
                    "a baseline JPEG, but the recipe asks for \(progressive.scanCount) progressive scans")
                return
            }
            let scans = structure.scans.map(\.script)
            let components = structure.components.count
            let recorded = recordedFile ? entry.script : nil
            let mismatch =
                if let scripts {
                    scripts.mismatch(
                        variant: recipe.name, progressive, scans, components: components, recorded: recorded)
                } else {
                    progressive.mismatch(scans, components: components, recorded: recorded)
                }
            if let mismatch {
                // Scans/ speaks of two kinds of mismatch: the count, or the script.
                problem(mismatch.kind == ProblemKind.scanCount.rawValue ? .scanCount : .scanScript, mismatch.message)
            }
        } else if structure.isProgressive {
            problem(
                .notBaseline,
                "a progressive JPEG with \(structure.scans.count) scans, but the recipe asks for a baseline one")
        }
        if recordedFile, entry.scans != structure.scans.count || entry.progressive != structure.isProgressive {
            problem(
                .scanCount,
                "the manifest says \(entry.progressive ? "progressive" : "baseline") with \(entry.scans) scans, the file has \(structure.scans.count)"
            )
        }
    }

    private func checkMetadata(_ structure: JPEGStructure, problem: (ProblemKind, String) -> Void) {
        for segment in structure.applicationSegments {
            switch (segment.marker, segment.signature) {
            case (0xE0, "JFIF"):
                continue
            case (0xE1, "Exif"):
                let payload = Array(bytes[(segment.offset + 4)..<(segment.offset + segment.length)])
                // ladder writes its EXIF with libexif: a block libexif cannot read is not one it
                // wrote, and what it holds cannot be vouched for.
                guard let exif = ExifMetadata(parsing: payload) else {
                    problem(
                        .metadata,
                        "an EXIF block (\(payload.count) bytes) that libexif cannot read, so the metadata policy cannot be checked; ladder writes only EXIF that libexif reads"
                    )
                    continue
                }
                if exif.hasGPS { problem(.gps, "the EXIF block holds GPS data") }
                if let orientation = exif.orientation, orientation != 1 {
                    problem(
                        .orientation,
                        "EXIF orientation \(orientation): the pixels must be upright and the tag 1 or absent")
                }
                if exif.hasThumbnail { problem(.metadata, "the EXIF block holds a thumbnail") }
                let extra = exif.fields.keys.filter { !keep.contains($0) }.map(\.rawValue).sorted()
                if !extra.isEmpty {
                    problem(.metadata, "EXIF tags outside metadata.keep: \(extra.joined(separator: ", "))")
                }
            default:
                let name = segment.signature.isEmpty ? "unnamed" : segment.signature
                problem(
                    .metadata, "an APP\(Int(segment.marker) - 0xE0) segment (\(name)) that the metadata policy removes"
                )
            }
        }
    }
}
