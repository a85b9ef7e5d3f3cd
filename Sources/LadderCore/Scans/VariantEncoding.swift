package import LadderImaging

/// A variant's encoded file, and for a progressive one the scan script it was written with.
package struct EncodedVariant: Sendable {
    package var bytes: [UInt8]
    /// The script of a progressive file (fixed or chosen), nil for a baseline one.
    package var script: ScanScript?
    /// When the script was chosen and no candidate met the first-picture budget: what it would take.
    package var budgetAdvice: String?
}

/// A variant encoded as far as it needs its picture. A chosen script is finished from the
/// coefficients alone, so the picture can be released before the choice: the decoded picture
/// and the coefficients are never held at once.
package struct PartlyEncodedVariant: Sendable {
    enum Stage: Sendable {
        case done(EncodedVariant)
        /// The coefficients fixed by one baseline encode, with the chooser to write them.
        case choosing(baseline: [UInt8], chooser: ScanScriptChooser)
    }
    let stage: Stage

    /// The variant an app shows before this one while it loads (`replay.firstRung`), when the
    /// script is chosen with it on screen; nil otherwise.
    package var firstRung: String? {
        guard case .choosing(_, let chooser) = stage else { return nil }
        return chooser.firstRungName
    }

    /// The encoded file, when it is finished without a choice.
    package var done: EncodedVariant? {
        guard case .done(let encoded) = stage else { return nil }
        return encoded
    }

    /// A JPEG with the rung's pixels: the finished file, or the baseline encode whose
    /// coefficients every candidate script writes (any of them decodes to the same picture).
    package var picturesJPEG: [UInt8] {
        switch stage {
        case .done(let encoded): encoded.bytes
        case .choosing(let baseline, _): baseline
        }
    }

    /// Finishes the encode: for a chosen script, scores the candidates, with `firstRung` (the
    /// file of the variant `firstRung` names) on screen until this one beats it, and writes the
    /// best.
    package func finished(firstRung: [UInt8]? = nil) throws(ImagingError) -> EncodedVariant {
        switch stage {
        case .done(let encoded):
            return encoded
        case .choosing(let baseline, let chooser):
            let choice = try chooser.choose(baseline, firstRung: firstRung)
            return EncodedVariant(bytes: choice.bytes, script: choice.script, budgetAdvice: choice.budgetAdvice)
        }
    }
}

extension VariantRecipe {
    /// Encodes `image` for this variant: baseline, with the variant's fixed scan script, or with
    /// the script chosen for this image (`"script": "auto"`), written losslessly from the
    /// coefficients of one encode.
    package func encoded(_ image: Image, exif: [UInt8]?) throws(ImagingError) -> EncodedVariant {
        try startEncoding(image, exif: exif).finished()
    }

    /// The part of `encoded(_:exif:)` that reads the picture: the whole encode for a baseline
    /// file or a fixed script, the baseline encode that fixes the coefficients for a chosen one.
    package func startEncoding(_ image: Image, exif: [UInt8]?) throws(ImagingError) -> PartlyEncodedVariant {
        guard let progressive, let automatic = progressive.automatic else {
            let encoding = encoding(components: image.bands, exif: exif)
            let script = progressive.map { $0.fixed(components: image.bands) }
            return PartlyEncodedVariant(
                stage: .done(EncodedVariant(bytes: try image.jpegEncoded(encoding), script: script)))
        }
        // One baseline encode fixes the quantized coefficients; every candidate is made from them.
        var baseline = encoding(components: image.bands, exif: exif)
        baseline.scans = []
        baseline.standardTables = true
        let chooser = ScanScriptChooser(
            scans: progressive.scanCount, firstPictureBudget: automatic.firstPictureBudget,
            budgetIsSet: automatic.budgetIsSet, displayWidth: automatic.displayWidth,
            firstRungName: automatic.firstRung)
        return PartlyEncodedVariant(stage: .choosing(baseline: try image.jpegEncoded(baseline), chooser: chooser))
    }
}

extension ProgressiveScripts {
    /// Why the scans of a file do not fit this variant (a kind and a message), or nil. A fixed
    /// script must be followed scan by scan; a chosen one must have the variant's number of
    /// scans, send every coefficient, carry the DC of every component in its first scan, and be
    /// the script the manifest recorded (`recorded`), when it recorded one.
    func mismatch(_ scans: [JPEGScan], components: Int, recorded: String?) -> (kind: String, message: String)? {
        let script = fixed(components: components)
        if scans.count != script.scans.count {
            return ("scan-count", "\(scans.count) scans, the recipe asks for exactly \(script.scans.count)")
        }
        guard automatic != nil else {
            guard let index = scans.indices.first(where: { scans[$0] != script.scans[$0] }) else { return nil }
            return (
                "scan-script",
                "scan \(index + 1) is \"\(scans[index])\", the recipe's script has \"\(script.scans[index])\""
            )
        }
        let found = ScanScript(scans)
        do {
            try found.validate(componentCount: components)
        } catch {
            return ("scan-script", "the file's scan script \"\(found)\" is not a complete one: \(error)")
        }
        if scans[0].ss != 0 || scans[0].se != 0 || scans[0].components != Array(0..<components) {
            return (
                "scan-script",
                "the first scan is \"\(scans[0])\"; it must carry the DC of every component, or the first picture lacks color"
            )
        }
        if let recorded, recorded != found.description {
            return ("scan-script", "the file's scan script is \"\(found)\", the manifest records \"\(recorded)\"")
        }
        return nil
    }
}

extension VariantRecipe {
    /// True when a replay finding of `kind` on this variant's file `bytes` is no fault of the
    /// file: a picture over the share budget from a script chosen per image, when the budget is
    /// the default one (which the choice aims at but does not promise: the build chose what
    /// shows best, and the replay shows the point), or when the file's first scan is already
    /// the smallest any candidate has (the DC of every component without its lowest bit) and
    /// no first rung is on screen before it, so that no script could show a picture earlier;
    /// the build then said what it would take.
    func excusesFirstPaint(_ kind: String, of bytes: [UInt8]) -> Bool {
        guard kind == "first-paint", let progressive, let automatic = progressive.automatic else { return false }
        if !automatic.budgetIsSet { return true }
        guard automatic.firstRung == nil, let first = (try? JPEGStructure(parsing: bytes))?.scans.first else {
            return false
        }
        return first.ss == 0 && first.se == 0 && first.ah == 0 && first.al >= 1
    }
}
