public import LadderImaging

/// The script `"script": "auto"` settled on for one image, and the file written with it.
public struct ScanScriptChoice: Sendable {
    public var script: ScanScript
    /// The image's coefficients written with `script`.
    public var bytes: [UInt8]
    /// The estimated quality over the download (SSIM, see `DownloadQuality`).
    public var quality: Double
    /// The share of the file after which the first picture can show.
    public var firstPictureShare: Double
    /// Set when no candidate meets the first-picture budget: what it would take instead.
    public var budgetAdvice: String?
}

/// Chooses, for one image, the scan script that shows it best while it downloads.
///
/// Every candidate (`ScanScriptCandidates`) is made losslessly from the same quantized
/// coefficients. Scoring each one by a full replay would cost a full decode per scan per
/// candidate, so the scorer is cheaper, and faithful where it matters:
/// - A scan's length depends only on its own parameters (its band, its bits, its component),
///   never on the order of the other scans, so candidates are written only as many times as it
///   takes to see every distinct scan once, and every candidate's scan offsets are added up
///   from those lengths.
/// - The luma picture after a scan depends only on which luma scans have arrived (chroma scans
///   leave luma alone), so each distinct luma state is decoded once, luma only, at a reduced
///   DCT scale (libjpeg's scale_denom) with block smoothing as browsers decode.
/// docs/SCAN_SCRIPTS.md compares this estimate with full-size replays.
public struct ScanScriptChooser: Sendable {
    /// The number of scans every candidate has.
    public var scans: Int
    /// The largest share of the file after which the first picture may show.
    public var firstPictureBudget: Double
    /// The decoded pictures are scored with about this many pixels (the DCT scale is the
    /// smallest of 1, 1/2, 1/4, 1/8 that brings the image under it).
    public var scoringPixels: Int
    /// The measure of one picture against the final one, on luma planes.
    public var pictureQuality: @Sendable ([UInt8], [UInt8], Int, Int) -> Double

    public static let defaultScoringPixels = 400_000

    public init(
        scans: Int, firstPictureBudget: Double, scoringPixels: Int = Self.defaultScoringPixels,
        pictureQuality: @escaping @Sendable ([UInt8], [UInt8], Int, Int) -> Double = {
            ImageQuality.ssim($0, reference: $1, width: $2, height: $3)
        }
    ) {
        self.scans = scans
        self.firstPictureBudget = firstPictureBudget
        self.scoringPixels = scoringPixels
        self.pictureQuality = pictureQuality
    }

    /// A candidate's estimated curve: where each scan can show and how good it is.
    public struct Estimate: Sendable {
        public var script: ScanScript
        public var showableAt: [Int]
        public var qualities: [Double]
        public var total: Int
        public var quality: Double { DownloadQuality.mean(qualities: qualities, showableAt: showableAt, total: total) }
        public var firstPictureShare: Double { total > 0 ? Double(showableAt[0]) / Double(total) : 0 }
    }

    /// Estimates every candidate for the image in `jpeg` (any JPEG of it: baseline or progressive).
    public func estimates(for jpeg: [UInt8]) throws(ImagingError) -> (JPEGCoefficients, [Estimate]) {
        let coefficients = try JPEGCoefficients(reading: jpeg)
        let candidates = ScanScriptCandidates.all(scans: scans, components: coefficients.components)
        guard !candidates.isEmpty else {
            throw ImagingError(
                operation: "choose a scan script", path: nil,
                reason:
                    "no \(scans)-scan script can carry a \(coefficients.components)-component image (color needs at least 4 scans)"
            )
        }
        // Scan key -> (bytes before its data: tables and SOS header, or the whole head of the
        // file for the first scan; bytes of entropy-coded data).
        var lengths: [JPEGScan: (head: Int, data: Int)] = [:]
        var lumaQuality: [[JPEGScan]: Double] = [:]
        var reference: [UInt8]?
        var scale = 0

        for candidate in candidates {
            let lumaStates = Self.lumaStates(candidate)
            let unmeasured = (0..<(scans - 1)).filter { lumaQuality[lumaStates[$0]] == nil }
            let unsized = candidate.scans.contains { lengths[$0] == nil }
            guard unsized || !unmeasured.isEmpty else { continue }
            let bytes = try coefficients.written(scans: candidate.scans)
            guard let structure = try? JPEGStructure(parsing: bytes), structure.scans.count == scans else {
                throw ImagingError(
                    operation: "choose a scan script", path: nil,
                    reason: "libjpeg wrote a file without the \(scans) scans of \(candidate)")
            }
            var previousEnd = 0
            for (index, scan) in structure.scans.enumerated() {
                let key = candidate.scans[index]
                let head = index == 0 ? scan.dataOffset : scan.dataOffset - previousEnd
                lengths[key] = (head, scan.endOffset - scan.dataOffset)
                previousEnd = scan.endOffset
            }
            if scale == 0 {
                scale = 1
                while scale < 8 && (structure.width / scale) * (structure.height / scale) > scoringPixels { scale *= 2 }
            }
            // Decode the new luma states, and the final picture once.
            var wanted = unmeasured.map { $0 + 1 }
            if reference == nil { wanted.append(scans) }
            guard !wanted.isEmpty else { continue }
            let decoded = try JPEGScanLumas(decoding: bytes, scaleDenominator: scale, scans: wanted)
            if reference == nil { reference = decoded.planes.last }
            for (position, scan) in unmeasured.map({ $0 + 1 }).enumerated() {
                lumaQuality[lumaStates[scan - 1]] = pictureQuality(
                    decoded.planes[position], reference!, decoded.width, decoded.height)
            }
        }

        let estimates = candidates.map { candidate -> Estimate in
            let lumaStates = Self.lumaStates(candidate)
            var showableAt: [Int] = []
            var received = 0
            for (index, scan) in candidate.scans.enumerated() {
                let length = lengths[scan]!
                if index > 0 { showableAt.append(received + length.head) }
                received += length.head + length.data
            }
            let total = received + 2  // the EOI marker
            showableAt.append(total)
            let qualities = (0..<scans).map { $0 == scans - 1 ? 1 : lumaQuality[lumaStates[$0]]! }
            return Estimate(script: candidate, showableAt: showableAt, qualities: qualities, total: total)
        }
        return (coefficients, estimates)
    }

    /// Chooses the script for the image in `jpeg` and writes it: the highest estimated quality
    /// over the download among the candidates whose first picture comes within the budget, or,
    /// when none does, the one whose first picture comes first, with advice on what it takes.
    public func choose(_ jpeg: [UInt8]) throws(ImagingError) -> ScanScriptChoice {
        let (coefficients, estimates) = try estimates(for: jpeg)
        let within = estimates.filter { $0.firstPictureShare <= firstPictureBudget }
        let best: Estimate
        var advice: String?
        if let winner = within.max(by: { $0.quality < $1.quality }) {
            best = winner
        } else {
            best = estimates.min { $0.firstPictureShare < $1.firstPictureShare }!
            advice = Self.advice(best: best, budget: firstPictureBudget, scans: scans)
        }
        return ScanScriptChoice(
            script: best.script, bytes: try coefficients.written(scans: best.script.scans), quality: best.quality,
            firstPictureShare: best.firstPictureShare, budgetAdvice: advice)
    }

    /// What it would take for the first picture to come within `budget`. The first scan of
    /// every candidate is the DC of every component, the least a colored first picture needs;
    /// when even its smallest form is over the budget, the image is one whose DC is most of the
    /// file (flat artwork, small pictures with large headers), and only a larger budget, or
    /// more scans to send the DC in more steps, would do.
    static func advice(best: Estimate, budget: Double, scans: Int) -> String {
        let share = best.firstPictureShare
        let needed = (share * 1000).rounded(.up) / 1000
        return
            "no \(scans)-scan script shows a first picture within \(percent(budget)) of the file: its smallest first scan (\(best.script.scans[0]), the DC every first picture needs) ends at \(percent(share)); it would take a first-picture budget of \(percent(needed)) (replay.firstPaintBudget), or more scans, to send the DC in more steps"
    }

    /// For each scan of `script`, the luma scans received once it is complete: what the luma
    /// picture then depends on.
    static func lumaStates(_ script: ScanScript) -> [[JPEGScan]] {
        var state: [JPEGScan] = []
        return script.scans.map { scan in
            if scan.components.contains(0) { state.append(scan) }
            return state
        }
    }
}
