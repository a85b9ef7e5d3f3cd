package import LadderImaging

/// The script `"script": "auto"` settled on for one image, and the file written with it.
package struct ScanScriptChoice: Sendable {
    package var script: ScanScript
    /// The image's coefficients written with `script`.
    package var bytes: [UInt8]
    /// The estimated quality over the download (SSIM, see `DownloadQuality`).
    package var quality: Double
    /// The share of the file after which the first picture can show.
    package var firstPictureShare: Double
    /// Set when no candidate meets the first-picture budget: what it would take instead.
    package var budgetAdvice: String?
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
/// - The luma picture after a scan depends only on which luma scans have arrived, whether the
///   next one carries luma, and whether the other components are complete (`LumaState`: block
///   smoothing, on as browsers decode, reads all three), so each distinct state is decoded
///   once, luma only.
/// - Scan lengths and pictures are measured on a sample of the image: square tiles of whole
///   iMCUs spread evenly over it, at full resolution (a reduced DCT scale would drop exactly the
///   detail that tells the scripts apart), the lengths scaled up to the whole image, and the
///   pictures measured inside each tile's margin (`sampling(_:scoringPixels:)`).
/// docs/SCAN_SCRIPTS.md compares this estimate with full-size replays.
package struct ScanScriptChooser: Sendable {
    /// The number of scans every candidate has.
    package var scans: Int
    /// The largest share of the file after which the first picture may show.
    package var firstPictureBudget: Double
    /// A first picture within this many bytes meets the budget whatever its share
    /// (`ReplaySettings.firstRoundTripBytes`, as `ladder verify --replay` counts it).
    package var firstRoundTripBytes: Int
    /// Candidates of an image larger than this are measured on a sample of at most about this
    /// many pixels (one tile more at most): square tiles of whole iMCUs spread evenly over the
    /// image, at full resolution.
    package var scoringPixels: Int
    /// The measure of pictures against the final one, on luma planes of a width and height.
    package var pictureQuality: @Sendable ([[UInt8]], [UInt8], Int, Int) -> [Double]
    /// What `pictureQuality` gives a picture identical to the final one (1 for SSIM): the
    /// last scan's, which is not measured.
    package var identicalQuality: Double

    package static let defaultScoringPixels = 250_000

    package init(
        scans: Int, firstPictureBudget: Double, firstRoundTripBytes: Int = ReplaySettings.firstRoundTripBytes,
        scoringPixels: Int = Self.defaultScoringPixels,
        pictureQuality: @escaping @Sendable ([[UInt8]], [UInt8], Int, Int) -> [Double] = {
            ImageQuality.ssim($0, reference: $1, width: $2, height: $3)
        },
        identicalQuality: Double = 1
    ) {
        self.scans = scans
        self.firstPictureBudget = firstPictureBudget
        self.firstRoundTripBytes = firstRoundTripBytes
        self.scoringPixels = scoringPixels
        self.pictureQuality = pictureQuality
        self.identicalQuality = identicalQuality
    }

    /// A candidate's estimated curve: where each scan can show and how good it is.
    package struct Estimate: Sendable {
        package var script: ScanScript
        package var showableAt: [Int]
        package var qualities: [Double]
        package var total: Int
        package var quality: Double {
            DownloadQuality(
                bytes: total,
                paints: qualities.indices.map {
                    DownloadQuality.Paint(scan: $0 + 1, offset: showableAt[$0], ssim: qualities[$0], psnr: 0)
                }
            ).meanSSIM
        }
        package var firstPictureShare: Double { total > 0 ? Double(showableAt[0]) / Double(total) : 0 }
    }

    /// Estimates every candidate for the image in `jpeg` (any JPEG of it: baseline or progressive):
    /// `ScanScriptCandidates`, or the scripts in `scripts`.
    package func estimates(
        for jpeg: [UInt8], scripts: [ScanScript]? = nil
    ) throws(ImagingError) -> (JPEGCoefficients, [Estimate]) {
        guard let structure = try? JPEGStructure(parsing: jpeg), structure.width > 0, structure.height > 0 else {
            throw ImagingError(operation: "choose a scan script", path: nil, reason: "not a well-formed JPEG")
        }
        let sampling = Self.sampling(structure, scoringPixels: scoringPixels)
        let coefficients = try JPEGCoefficients(reading: jpeg, sample: sampling?.sample)
        let candidates = scripts ?? ScanScriptCandidates.all(scans: scans, components: coefficients.components)
        guard !candidates.isEmpty else {
            throw ImagingError(
                operation: "choose a scan script", path: nil,
                reason:
                    "no \(scans)-scan script can carry a \(coefficients.components)-component image (color needs at least 4 scans)"
            )
        }
        // From the sample to the whole image: entropy-coded data grows with the iMCUs kept, and
        // the whole file has the source's metadata segments in its head.
        let dataScale = sampling?.dataScale ?? 1
        // (A sample is written without markers; the whole image, when not sampled, with them.)
        let metadataBytes = sampling != nil ? structure.applicationSegments.reduce(0) { $0 + $1.length } : 0

        // Scan -> (bytes before its data: tables and SOS header, or the whole head of the
        // file for the first scan; bytes of entropy-coded data).
        var lengths: [JPEGScan: (head: Int, data: Int)] = [:]
        var lumaQuality: [LumaState: Double] = [:]
        // The final picture, in the parts that are measured (`MeasuredParts`), cut once.
        var reference: MeasuredParts?
        for candidate in candidates {
            let lumaStates = Self.lumaStates(candidate)
            // Each state not yet measured, once (the last scan shows the final picture).
            var unmeasured: [Int] = []
            for index in 0..<(scans - 1)
            where !Self.isFinal(lumaStates[index], of: lumaStates) && lumaQuality[lumaStates[index]] == nil
                && !unmeasured.contains(where: { lumaStates[$0] == lumaStates[index] })
            {
                unmeasured.append(index)
            }
            let unsized = candidate.scans.contains { lengths[$0] == nil }
            guard unsized || !unmeasured.isEmpty else { continue }
            let sample = try coefficients.sampleWritten(scans: candidate.scans)
            guard let written = try? JPEGStructure(parsing: sample), written.scans.count == scans else {
                throw ImagingError(
                    operation: "choose a scan script", path: nil,
                    reason: "libjpeg wrote a file without the \(scans) scans of \(candidate)")
            }
            var previousEnd = 0
            for (index, scan) in written.scans.enumerated() {
                let head = index == 0 ? scan.dataOffset + metadataBytes : scan.dataOffset - previousEnd
                let data = Int((Double(scan.endOffset - scan.dataOffset) * dataScale).rounded())
                lengths[candidate.scans[index]] = (head, data)
                previousEnd = scan.endOffset
            }
            // Decode the new luma states, and the final picture once.
            var wanted = unmeasured.map { $0 + 1 }
            if reference == nil { wanted.append(scans) }
            guard !wanted.isEmpty else { continue }
            let decoded = try Self.lumaPictures(sample, structure: written, scans: wanted)
            let parts = { (plane: [UInt8]) in
                MeasuredParts(plane, width: decoded.width, height: decoded.height, sampling: sampling)
            }
            if reference == nil { reference = parts(decoded.planes.last!) }
            let values = measured(decoded.planes.prefix(unmeasured.count).map(parts), reference: reference!)
            for (position, index) in unmeasured.enumerated() { lumaQuality[lumaStates[index]] = values[position] }
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
            let qualities = (0..<scans).map {
                Self.isFinal(lumaStates[$0], of: lumaStates) ? identicalQuality : lumaQuality[lumaStates[$0]]!
            }
            return Estimate(script: candidate, showableAt: showableAt, qualities: qualities, total: total)
        }
        return (coefficients, estimates)
    }

    /// How the candidates of one image are measured on a sample of it: the tiles kept, how much
    /// more entropy-coded data the whole image has than the sample, and the tiles' size in pixels.
    struct Sampling {
        var sample: JPEGCoefficients.Sample
        var dataScale: Double
        var tileWidth: Int
        var tileHeight: Int
    }

    /// The side of a sample's tiles in pixels (rounded down to whole iMCUs), and the margin of
    /// each tile left out of the measure. libjpeg-turbo's block smoothing estimates a block's
    /// missing coefficients from the DC of the blocks around it (up to two away), which across
    /// a tile's edge belong to another part of the image; leaving the outer ring of blocks out
    /// keeps the measure to blocks whose nearest neighbours are their own. Tiles of 96 pixels
    /// with a margin of 8 picked the best candidate on all 20 photos of docs/SCAN_SCRIPTS.md,
    /// where tiles of 128 with a margin of 16 (fewer places, for the same pixels) did not.
    static let tileSide = 96
    static let tileMargin = 8

    /// The sample to measure the image of `structure` on, or nil to measure the whole image (an
    /// image of at most `scoringPixels` pixels, or too small for 4 tiles): a grid of square
    /// tiles of about `scoringPixels` pixels in all (never more than one tile over), spread
    /// evenly over the image in both directions, as many across as its shape asks. Whole-width bands of one
    /// iMCU row, as revision 3 sampled, misjudged photos: every block of such a sample lies
    /// within two blocks of another band, so block smoothing worked from the wrong neighbours.
    static func sampling(_ structure: JPEGStructure, scoringPixels: Int) -> Sampling? {
        let (width, height) = (structure.width, structure.height)
        guard width * height > scoringPixels else { return nil }
        let imcuWidth = 8 * (structure.components.map(\.horizontalSampling).max() ?? 1)
        let imcuHeight = 8 * (structure.components.map(\.verticalSampling).max() ?? 1)
        let (columns, rows) = (max(1, tileSide / imcuWidth), max(1, tileSide / imcuHeight))
        let (tileWidth, tileHeight) = (columns * imcuWidth, rows * imcuHeight)
        let imcusAcross = (width + imcuWidth - 1) / imcuWidth
        let imcusDown = (height + imcuHeight - 1) / imcuHeight
        let tiles = max(1, (scoringPixels + tileWidth * tileHeight - 1) / (tileWidth * tileHeight))
        let across = min(
            (imcusAcross - 1) / columns,
            max(1, Int((Double(tiles * width) / Double(height)).squareRoot().rounded())))
        let down = min((imcusDown - 1) / rows, tiles / max(1, across))
        guard across >= 1, down >= 1, across * down >= 4 else { return nil }
        let sample = JPEGCoefficients.Sample(across: across, down: down, columns: columns, rows: rows)
        let dataScale = Double(imcusAcross * imcusDown) / Double(across * columns * down * rows)
        return Sampling(sample: sample, dataScale: dataScale, tileWidth: tileWidth, tileHeight: tileHeight)
    }

    /// The parts of a luma picture that are measured: the whole plane, or, on a sample, each
    /// tile inside its margin (`tileMargin`), in rows of tiles from the top, each row from the
    /// left.
    struct MeasuredParts {
        var parts: [[UInt8]]
        var width: Int
        var height: Int

        init(_ plane: [UInt8], width: Int, height: Int, sampling: Sampling?) {
            guard let sampling else {
                (parts, self.width, self.height) = ([plane], width, height)
                return
            }
            let margin = ScanScriptChooser.tileMargin
            let (innerWidth, innerHeight) = (sampling.tileWidth - 2 * margin, sampling.tileHeight - 2 * margin)
            (self.width, self.height) = (innerWidth, innerHeight)
            parts = []
            parts.reserveCapacity(sampling.sample.across * sampling.sample.down)
            for down in 0..<sampling.sample.down {
                for across in 0..<sampling.sample.across {
                    let left = across * sampling.tileWidth + margin
                    let top = down * sampling.tileHeight + margin
                    parts.append(
                        [UInt8](unsafeUninitializedCapacity: innerWidth * innerHeight) { tile, count in
                            plane.withUnsafeBufferPointer { plane in
                                for row in 0..<innerHeight {
                                    (tile.baseAddress! + row * innerWidth).initialize(
                                        from: plane.baseAddress! + (top + row) * width + left, count: innerWidth)
                                }
                            }
                            count = innerWidth * innerHeight
                        })
                }
            }
        }
    }

    /// `pictureQuality` of each of `pictures` against `reference`, part by part: the mean over
    /// the parts (the whole planes, or a sample's tiles) of the measure of each part.
    func measured(_ pictures: [MeasuredParts], reference: MeasuredParts) -> [Double] {
        guard !pictures.isEmpty else { return [] }
        if reference.parts.count == 1 {
            return pictureQuality(pictures.map { $0.parts[0] }, reference.parts[0], reference.width, reference.height)
        }
        var sums = [Double](repeating: 0, count: pictures.count)
        for index in reference.parts.indices {
            let values = pictureQuality(
                pictures.map { $0.parts[index] }, reference.parts[index], reference.width, reference.height)
            for picture in sums.indices { sums[picture] += values[picture] }
        }
        let count = Double(reference.parts.count)
        return sums.map { $0 / count }
    }

    /// Chooses the script for the image in `jpeg` and writes it: the highest estimated quality
    /// over the download among the candidates whose first picture comes within the budget (or
    /// within the first round trip, `firstRoundTripBytes`), or,
    /// when none does, the one whose first picture comes first, with advice on what it takes.
    package func choose(_ jpeg: [UInt8]) throws(ImagingError) -> ScanScriptChoice {
        let (coefficients, estimates) = try estimates(for: jpeg)
        let within = estimates.filter {
            $0.firstPictureShare <= firstPictureBudget || $0.showableAt[0] <= firstRoundTripBytes
        }
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

    /// The luma pictures of `jpeg` after the scans numbered `scans` (1-based, ascending), as the
    /// replay shows them (`DownloadQuality`): the file fed up to where each scan can show, the
    /// next scan's header read and libjpeg waiting for its data.
    static func lumaPictures(
        _ jpeg: [UInt8], structure: JPEGStructure, scans: [Int]
    ) throws(ImagingError) -> (planes: [[UInt8]], width: Int, height: Int) {
        let decoder = try JPEGReplayDecoder(jpeg, maximumScans: structure.scans.count, lumaOnly: true)
        var planes: [[UInt8]] = []
        for scan in scans {
            let showable = scan < structure.scans.count ? structure.scans[scan].dataOffset : jpeg.count
            _ = try decoder.advance(to: showable)
            planes.append(try decoder.render(scan: scan).luma())
        }
        return (planes, decoder.state.width, decoder.state.height)
    }

    /// What the luma picture shown after a scan depends on, besides the image. Its coefficients
    /// are those of the luma scans received; but libjpeg-turbo's block smoothing (on, as in
    /// browsers) fills coefficients it believes missing, and its bookkeeping already counts the
    /// next scan, whose header has been read when the scan is shown (jdphuff.c `start_pass`):
    /// below the first iMCU row it judges each component by its state before that component's
    /// latest scan began (jdcoefct.c, `prev_coef_bits`), which is the next scan when that one
    /// carries luma; and it smooths nothing once no component seems to miss any of its lowest
    /// coefficients (1 to 9), counting the next scan as received. So the same luma scans show
    /// differently depending on the next scan and on the other components, and the key holds
    /// all three.
    struct LumaState: Hashable {
        /// The scans carrying luma received, in order.
        var received: [JPEGScan]
        /// The next scan, when it carries luma.
        var next: JPEGScan?
        /// Whether the other components have all their lowest coefficients (1 to 9), counting
        /// the next scan as received.
        var othersSettled: Bool
    }

    /// True when the picture of `state` is the final one: every luma scan of the script is in
    /// and no component seems to miss a low coefficient, so block smoothing is off.
    static func isFinal(_ state: LumaState, of states: [LumaState]) -> Bool {
        state == states.last || (state.received.count == states.last?.received.count && state.othersSettled)
    }

    /// For each scan of `script`, what the luma picture shown once it is complete depends on.
    static func lumaStates(_ script: ScanScript) -> [LumaState] {
        let others = Set(script.scans.flatMap(\.components)).subtracting([0])
        var received: [JPEGScan] = []
        return script.scans.indices.map { index in
            let scan = script.scans[index]
            if scan.components.contains(0) { received.append(scan) }
            let next = index + 1 < script.scans.count ? script.scans[index + 1] : nil
            let counted = script.scans.prefix(index + 1) + (next.map { [$0] } ?? [])
            let settled = others.allSatisfy { component in
                (1...9).allSatisfy { coefficient in
                    counted.contains {
                        $0.components.contains(component) && $0.ss <= coefficient && coefficient <= $0.se && $0.al == 0
                    }
                }
            }
            return LumaState(
                received: received, next: next?.components.contains(0) == true ? next : nil, othersSettled: settled)
        }
    }
}
