package import LadderImaging

/// The script `"script": "auto"` settled on for one image, and the file written with it.
package struct ScanScriptChoice: Sendable {
    package var script: ScanScript
    /// The image's coefficients written with `script`.
    package var bytes: [UInt8]
    /// The estimated quality on screen over the download (`ScreenTimeline.meanOnScreen`).
    package var quality: Double
    /// The share of the file after which its picture replaces what is on screen: the first
    /// rung, or, without one, the blank screen.
    package var firstPictureShare: Double
    /// Set when no candidate meets the first-picture budget: what it would take instead.
    package var budgetAdvice: String?
}

/// Chooses, for one image, the scan script that shows it best while it downloads, by what the
/// screen shows (`ScreenQuality`): the rung an app shows first (large_thumb by default) stretched
/// to the view until a picture of the file is closer to the final picture, then the file's
/// pictures, all in colour at the view's size.
///
/// Every candidate (`ScanScriptCandidates`) is made losslessly from the same quantized
/// coefficients. Scoring each one by a full replay would cost a full decode per scan per
/// candidate, so the scorer is cheaper, and faithful where it matters:
/// - A scan's length depends only on its own parameters (its band, its bits, its component),
///   never on the order of the other scans, so candidates are written only as many times as it
///   takes to see every distinct scan once, and every candidate's scan offsets are added up
///   from those lengths.
/// - The picture after a scan depends only on the scans each component has received, in order
///   (`PictureState`), painted as browsers paint it, before libjpeg reads the next scan's header
///   (`ScanPainter`), so each distinct state is decoded once.
/// - Scan lengths and pictures are measured on a sample of the image: square tiles of whole
///   iMCUs spread evenly over it (large enough for the measure's coarsest scale, `tileSide`),
///   decoded at full resolution, each tile's inside scaled to the view's scale as the whole
///   picture would be, the lengths scaled up to the whole image
///   (`sampling(_:scoringPixels:tileSide:)`); the first rung is cut at the same places of the view.
/// docs/SCAN_SCRIPTS.md compares this estimate with full-size replays.
package struct ScanScriptChooser: Sendable {
    /// The number of scans every candidate has.
    package var scans: Int
    /// The largest share of the file after which its picture may replace what is on screen.
    package var firstPictureBudget: Double
    /// True when the pipeline set `firstPictureBudget`: the build then says when no candidate
    /// meets it. The default budget is one every image can meet, or not a user's concern.
    package var budgetIsSet: Bool
    /// A picture within this many bytes meets the budget whatever its share
    /// (`ReplaySettings.firstRoundTripBytes`, as `ladder verify --replay` counts it).
    package var firstRoundTripBytes: Int
    /// Candidates of an image larger than this are measured on a sample of at most about this
    /// many pixels (one tile more at most): square tiles of whole iMCUs spread evenly over the
    /// image, at full resolution.
    package var scoringPixels: Int
    /// The width of the view the pictures are compared in (`ScreenQuality.displaySize`).
    package var displayWidth: Int
    /// The name of the rung on screen before the file, for messages.
    package var firstRungName: String?
    /// The measure of pictures against the final one, each a list of planes (Y, Cb, Cr, or one)
    /// of a width and height.
    package var pictureQuality: @Sendable ([[[UInt8]]], [[UInt8]], Int, Int) -> [Double]
    /// What `pictureQuality` gives a picture identical to the final one (1 for SSIM): the
    /// last scan's, which is not measured.
    package var identicalQuality: Double

    package static let defaultScoringPixels = 250_000

    package init(
        scans: Int, firstPictureBudget: Double, budgetIsSet: Bool = true,
        firstRoundTripBytes: Int = ReplaySettings.firstRoundTripBytes,
        scoringPixels: Int = Self.defaultScoringPixels, displayWidth: Int = ScreenQuality.defaultDisplayWidth,
        firstRungName: String? = nil,
        pictureQuality: @escaping @Sendable ([[[UInt8]]], [[UInt8]], Int, Int) -> [Double] = {
            ScreenQuality.measure($0, reference: $1, width: $2, height: $3)
        },
        identicalQuality: Double = 1
    ) {
        self.scans = scans
        self.firstPictureBudget = firstPictureBudget
        self.budgetIsSet = budgetIsSet
        self.firstRoundTripBytes = firstRoundTripBytes
        self.scoringPixels = scoringPixels
        self.displayWidth = displayWidth
        self.firstRungName = firstRungName
        self.pictureQuality = pictureQuality
        self.identicalQuality = identicalQuality
    }

    /// A candidate's estimated curve: where each scan can show and how good it is.
    package struct Estimate: Sendable {
        package var script: ScanScript
        package var showableAt: [Int]
        package var qualities: [Double]
        package var total: Int
        /// The quality of the rung on screen before the file, nil without one.
        package var firstRung: Double?
        /// True when that rung is as large as the image (an image no larger than the rung's
        /// box): the same picture, which no scan needs to beat within a budget.
        package var firstRungIsFullSize = false

        /// What the screen shows while the file downloads.
        package var timeline: ScreenTimeline {
            ScreenTimeline(
                bytes: total,
                paints: qualities.indices.map { ScreenTimeline.Paint(offset: showableAt[$0], quality: qualities[$0]) },
                firstRung: firstRung)
        }
        /// The mean quality on screen over the download.
        package var quality: Double { timeline.meanOnScreen }
        /// The byte count after which the file's picture replaces what is on screen.
        package var shownAt: Int { timeline.fullShownOffset ?? total }
        /// `shownAt` as a share of the file.
        package var firstPictureShare: Double { total > 0 ? Double(shownAt) / Double(total) : 0 }
    }

    /// Estimates every candidate for the image in `jpeg` (any JPEG of it: baseline or
    /// progressive), `ScanScriptCandidates` or the scripts in `scripts`, with `firstRung` (a
    /// JPEG of the rung on screen before it; nil for none) on screen until the file beats it.
    package func estimates(
        for jpeg: [UInt8], scripts: [ScanScript]? = nil, firstRung: [UInt8]? = nil
    ) throws(ImagingError) -> (JPEGCoefficients, [Estimate]) {
        guard let structure = try? JPEGStructure(parsing: jpeg), structure.width > 0, structure.height > 0 else {
            throw ImagingError(operation: "choose a scan script", path: nil, reason: "not a well-formed JPEG")
        }
        let image = PixelSize(width: structure.width, height: structure.height)
        let display = ScreenQuality.displaySize(of: image, displayWidth: displayWidth)
        let sampling = Self.sampling(
            structure, scoringPixels: scoringPixels, tileSide: Self.tileSide(image: image, display: display))
        let coefficients = try JPEGCoefficients(reading: jpeg, sample: sampling?.sample)
        let candidates = scripts ?? ScanScriptCandidates.all(scans: scans, components: coefficients.components)
        guard !candidates.isEmpty else {
            throw ImagingError(
                operation: "choose a scan script", path: nil,
                reason:
                    "no \(scans)-scan script can carry a \(coefficients.components)-component image (color needs at least 4 scans)"
            )
        }
        let view = View(image: image, display: display, sampling: sampling)
        // From the sample to the whole image: entropy-coded data grows with the iMCUs kept, and
        // the whole file has the source's metadata segments in its head.
        let dataScale = sampling?.dataScale ?? 1
        // (A sample is written without markers; the whole image, when not sampled, with them.)
        let metadataBytes = sampling != nil ? structure.applicationSegments.reduce(0) { $0 + $1.length } : 0

        // Scan -> (bytes before its data: tables and SOS header, or the whole head of the
        // file for the first scan; bytes of entropy-coded data).
        var lengths: [JPEGScan: (head: Int, data: Int)] = [:]
        var pictureQualities: [PictureState: Double] = [:]
        // The final picture, in the parts that are measured (`MeasuredParts`), cut once.
        var reference: MeasuredParts?
        for candidate in candidates {
            let states = Self.pictureStates(candidate)
            // Each state not yet measured, once (the last scan shows the final picture).
            var unmeasured: [Int] = []
            for index in 0..<(scans - 1)
            where pictureQualities[states[index]] == nil && !unmeasured.contains(where: { states[$0] == states[index] })
            {
                unmeasured.append(index)
            }
            let unsized = candidate.scans.contains { lengths[$0] == nil }
            guard unsized || !unmeasured.isEmpty || reference == nil else { continue }
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
            // Decode the new states, and the final picture once.
            var wanted = unmeasured.map { $0 + 1 }
            if reference == nil { wanted.append(scans) }
            guard !wanted.isEmpty else { continue }
            let decoded = try Self.pictures(sample, structure: written, scans: wanted)
            if reference == nil { reference = view.parts(of: decoded.last!) }
            let values = measured(decoded.prefix(unmeasured.count).map(view.parts), reference: reference!)
            for (position, index) in unmeasured.enumerated() { pictureQualities[states[index]] = values[position] }
        }
        let rung = firstRung.flatMap { view.parts(ofRung: $0) }
        let firstRungQuality = rung.map { measured([$0.parts], reference: reference!)[0] }
        // A first rung as large as the image is the same picture: no budget to meet.
        let rungIsFullSize =
            rung.map { $0.size.width >= structure.width && $0.size.height >= structure.height } ?? false

        let estimates = candidates.map { candidate -> Estimate in
            let states = Self.pictureStates(candidate)
            var showableAt: [Int] = []
            var received = 0
            for (index, scan) in candidate.scans.enumerated() {
                let length = lengths[scan]!
                if index > 0 { showableAt.append(received + length.head) }
                received += length.head + length.data
            }
            let total = received + 2  // the EOI marker
            showableAt.append(total)
            let qualities = (0..<scans).map { $0 == scans - 1 ? identicalQuality : pictureQualities[states[$0]]! }
            return Estimate(
                script: candidate, showableAt: showableAt, qualities: qualities, total: total,
                firstRung: firstRungQuality, firstRungIsFullSize: rungIsFullSize)
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
        /// Where each tile starts in the image, in pixels, rows of tiles from the top.
        var origins: [(x: Int, y: Int)]
    }

    /// The side of a sample's tiles in pixels (rounded down to whole iMCUs), and the margin of
    /// each tile left out of the measure. libjpeg-turbo's block smoothing estimates a block's
    /// missing coefficients from the DC of the blocks around it (up to two away), and its
    /// chroma upsampling reads the next chroma sample, which across a tile's edge belong to
    /// another part of the image; leaving the outer ring of blocks out keeps the measure to
    /// blocks whose nearest neighbours are their own. Tiles of 96 pixels with a margin of 8
    /// picked the best candidate on all 20 photos of docs/SCAN_SCRIPTS.md (by luma), where
    /// tiles of 128 with a margin of 16 (fewer places, for the same pixels) did not.
    static let tileSide = 96
    static let tileMargin = 8
    /// The least side of a tile's inside at the measure's coarsest scale (`ScreenQuality.
    /// coarsestScale` pixels of the view a side): 24 pixels hold 14 x 14 of SSIM's 11-pixel
    /// windows.
    static let measuredTileSide = 24

    /// The side of the sample's tiles for an image shown in a view of `display`: `tileSide`, or
    /// larger when the measure's coarsest scale would leave a tile's inside under
    /// `measuredTileSide`.
    package static func tileSide(image: PixelSize, display: PixelSize) -> Int {
        let factor = ScreenQuality.coarsestScale
        let inner = (measuredTileSide * factor * image.width + display.width - 1) / max(1, display.width)
        return max(tileSide, inner + 2 * tileMargin)
    }

    /// The sample to measure the image of `structure` on, or nil to measure the whole image (an
    /// image of at most `scoringPixels` pixels, or too small for 4 tiles): a grid of square
    /// tiles of about `scoringPixels` pixels in all (never more than one tile over), spread
    /// evenly over the image in both directions, as many across as its shape asks. Whole-width bands of one
    /// iMCU row, as revision 3 sampled, misjudged photos: every block of such a sample lies
    /// within two blocks of another band, so block smoothing worked from the wrong neighbours.
    static func sampling(_ structure: JPEGStructure, scoringPixels: Int, tileSide: Int = tileSide) -> Sampling? {
        let (width, height) = (structure.width, structure.height)
        guard width * height > scoringPixels else { return nil }
        let imcuWidth = 8 * (structure.components.map(\.horizontalSampling).max() ?? 1)
        let imcuHeight = 8 * (structure.components.map(\.verticalSampling).max() ?? 1)
        let (columns, rows) = ((tileSide + imcuWidth - 1) / imcuWidth, (tileSide + imcuHeight - 1) / imcuHeight)
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
        // As the C sampler places them: the middle of the index-th of `count` equal cells of the
        // iMCUs clear of the last row and column.
        func start(_ index: Int, _ count: Int, _ size: Int, _ usable: Int) -> Int {
            let cell = usable / count
            return index * usable / count + (cell > size ? (cell - size) / 2 : 0)
        }
        var origins: [(x: Int, y: Int)] = []
        for tileDown in 0..<down {
            for tileAcross in 0..<across {
                origins.append(
                    (
                        start(tileAcross, across, columns, imcusAcross - 1) * imcuWidth,
                        start(tileDown, down, rows, imcusDown - 1) * imcuHeight
                    ))
            }
        }
        return Sampling(
            sample: sample, dataScale: dataScale, tileWidth: tileWidth, tileHeight: tileHeight, origins: origins)
    }

    /// The parts of pictures that are measured: the whole picture, or, on a sample, each tile
    /// inside its margin (`tileMargin`), in rows of tiles from the top, each row from the
    /// left; each part as the view shows it (scaled to its scale), a list of planes.
    struct MeasuredParts {
        var parts: [[[UInt8]]]
        var width: Int
        var height: Int
    }

    /// Where pictures are shown: the image's size, the view's, and the sample's tiles.
    struct View {
        var image: PixelSize
        var display: PixelSize
        var sampling: Sampling?

        /// The size of a tile's inside, in the image and at the view's scale.
        var inner: (width: Int, height: Int) {
            let margin = ScanScriptChooser.tileMargin
            return (sampling!.tileWidth - 2 * margin, sampling!.tileHeight - 2 * margin)
        }
        var scaledInner: PixelSize {
            PixelSize(
                width: max(1, (inner.width * display.width + image.width / 2) / image.width),
                height: max(1, (inner.height * display.height + image.height / 2) / image.height))
        }

        /// A decoded picture of the file (the whole image, or the sample) in its measured parts.
        func parts(of pixels: DecodedPixels) -> MeasuredParts {
            let planes = ScreenQuality.planes(of: pixels)
            guard let sampling else {
                let part = ScreenQuality.scaled(planes, width: pixels.width, height: pixels.height, to: display)
                return MeasuredParts(parts: [part], width: display.width, height: display.height)
            }
            let margin = ScanScriptChooser.tileMargin
            let (innerWidth, innerHeight) = inner
            let target = scaledInner
            var parts: [[[UInt8]]] = []
            parts.reserveCapacity(sampling.sample.across * sampling.sample.down)
            for down in 0..<sampling.sample.down {
                for across in 0..<sampling.sample.across {
                    let left = across * sampling.tileWidth + margin
                    let top = down * sampling.tileHeight + margin
                    let cut = planes.map {
                        Self.crop($0, width: pixels.width, left: left, top: top, width: innerWidth, height: innerHeight)
                    }
                    parts.append(ScreenQuality.scaled(cut, width: innerWidth, height: innerHeight, to: target))
                }
            }
            return MeasuredParts(parts: parts, width: target.width, height: target.height)
        }

        /// The rung in `jpeg`, stretched to the view, in the measured parts (the same places of
        /// the view as the file's); nil when it cannot be decoded.
        func parts(ofRung jpeg: [UInt8]) -> (parts: MeasuredParts, size: PixelSize)? {
            guard let pixels = try? DecodedPixels(decodingJPEG: jpeg), pixels.width > 0, pixels.height > 0 else {
                return nil
            }
            let size = PixelSize(width: pixels.width, height: pixels.height)
            let shown = ScreenQuality.shown(pixels, at: display)
            guard let sampling else {
                return (MeasuredParts(parts: [shown], width: display.width, height: display.height), size)
            }
            let margin = ScanScriptChooser.tileMargin
            let target = scaledInner
            let parts = sampling.origins.map { origin in
                let left = min(
                    display.width - target.width,
                    ((origin.x + margin) * display.width + image.width / 2) / image.width)
                let top = min(
                    display.height - target.height,
                    ((origin.y + margin) * display.height + image.height / 2) / image.height)
                return shown.map {
                    Self.crop(
                        $0, width: display.width, left: left, top: top, width: target.width, height: target.height)
                }
            }
            return (MeasuredParts(parts: parts, width: target.width, height: target.height), size)
        }

        static func crop(
            _ plane: [UInt8], width: Int, left: Int, top: Int, width cropWidth: Int, height: Int
        )
            -> [UInt8]
        {
            [UInt8](unsafeUninitializedCapacity: cropWidth * height) { part, count in
                plane.withUnsafeBufferPointer { plane in
                    for row in 0..<height {
                        (part.baseAddress! + row * cropWidth).initialize(
                            from: plane.baseAddress! + (top + row) * width + left, count: cropWidth)
                    }
                }
                count = cropWidth * height
            }
        }
    }

    /// `pictureQuality` of each of `pictures` against `reference`, part by part: the mean over
    /// the parts (the whole pictures, or a sample's tiles) of the measure of each part.
    func measured(_ pictures: [MeasuredParts], reference: MeasuredParts) -> [Double] {
        guard !pictures.isEmpty else { return [] }
        var sums = [Double](repeating: 0, count: pictures.count)
        for index in reference.parts.indices {
            let values = pictureQuality(
                pictures.map { $0.parts[index] }, reference.parts[index], reference.width, reference.height)
            for picture in sums.indices { sums[picture] += values[picture] }
        }
        let count = Double(reference.parts.count)
        return sums.map { $0 / count }
    }

    /// Chooses the script for the image in `jpeg` and writes it, with `firstRung` (a JPEG of the
    /// rung an app shows first, nil for none) on screen until the file beats it: the highest
    /// estimated quality on screen over the download among the candidates whose picture
    /// replaces what is on screen within the budget (or within the first round trip,
    /// `firstRoundTripBytes`; any, when the first rung is as large as the image), or, when none does, the one whose picture does so first, with
    /// advice on what it takes when the budget was set (`budgetIsSet`).
    ///
    /// With a first rung on screen, the candidates that withhold the DC's lowest bit are scored
    /// only when no other candidate meets the budget: they are there for the budget (a smaller
    /// first scan, for a smooth image on a blank screen), and over a thumbnail the measure of
    /// revision 6 chose one for 1 image of 29, which FLIP scored 26 % worse than the fixed
    /// script (docs/SCAN_SCRIPTS.md); scoring them for every image cost a sixth of the choice.
    package func choose(_ jpeg: [UInt8], firstRung: [UInt8]? = nil) throws(ImagingError) -> ScanScriptChoice {
        func meetsBudget(_ estimate: Estimate) -> Bool {
            estimate.firstPictureShare <= firstPictureBudget || estimate.shownAt <= firstRoundTripBytes
                || estimate.firstRungIsFullSize
        }
        let components = (try? JPEGStructure(parsing: jpeg))?.components.count ?? 0
        let all = ScanScriptCandidates.all(scans: scans, components: components)
        let fullDC = all.filter { $0.scans.first.map { $0.al == 0 } ?? true }
        var (coefficients, estimates) = try estimates(
            for: jpeg, scripts: firstRung != nil && !fullDC.isEmpty ? fullDC : nil, firstRung: firstRung)
        if estimates.count < all.count, !estimates.contains(where: meetsBudget) {
            (coefficients, estimates) = try self.estimates(for: jpeg, firstRung: firstRung)
        }
        let within = estimates.filter(meetsBudget)
        let best: Estimate
        var advice: String?
        if let winner = within.max(by: { $0.quality < $1.quality }) {
            best = winner
        } else {
            best = estimates.min { ($0.firstPictureShare, -$0.quality) < ($1.firstPictureShare, -$1.quality) }!
            if budgetIsSet {
                advice = Self.advice(best: best, budget: firstPictureBudget, scans: scans, firstRung: firstRungName)
            }
        }
        return ScanScriptChoice(
            script: best.script, bytes: try coefficients.written(scans: best.script.scans), quality: best.quality,
            firstPictureShare: best.firstPictureShare, budgetAdvice: advice)
    }

    /// What it would take for the file's picture to replace what is on screen within `budget`:
    /// a larger budget (the earliest any candidate reaches), or more scans.
    static func advice(best: Estimate, budget: Double, scans: Int, firstRung: String?) -> String {
        let share = best.firstPictureShare
        let needed = (share * 1000).rounded(.up) / 1000
        let what =
            best.firstRung != nil
            ? "a picture better than \(firstRung ?? "the first rung")" : "a first picture"
        return
            "no \(scans)-scan script shows \(what) within \(percent(budget)) of the file: the earliest (\(best.script)) does after \(percent(share)); it would take a first-picture budget of \(percent(needed)) (replay.firstPaintBudget), or more scans"
    }

    /// The pictures of `jpeg` after the scans numbered `scans` (1-based, ascending), as the
    /// replay shows them: each painted once the scan's data is complete, before libjpeg reads the
    /// next scan's header (`ScanPainter`), the last from the whole file; in the file's own color
    /// space (YCbCr).
    static func pictures(
        _ jpeg: [UInt8], structure: JPEGStructure, scans: [Int]
    ) throws(ImagingError) -> [DecodedPixels] {
        var painter = ScanPainter(try JPEGReplayDecoder(jpeg, maximumScans: structure.scans.count))
        var pictures: [DecodedPixels] = []
        for scan in scans {
            let showable = scan < structure.scans.count ? structure.scans[scan].dataOffset : jpeg.count
            if scan < structure.scans.count {
                try painter.advance(to: structure.scans[scan - 1].endOffset + 2, painting: scan)
                try painter.advance(to: showable)
                if let picture = painter.pictures.removeValue(forKey: scan) {
                    pictures.append(picture)
                    continue
                }
            }
            _ = try painter.decoder.advance(to: showable)
            pictures.append(try painter.decoder.render(scan: scan))
        }
        return pictures
    }

    /// What the picture shown after a scan depends on, besides the image: the scans each
    /// component has received, in order. libjpeg-turbo's block smoothing (on, as in browsers)
    /// fills coefficients it believes missing, judging each component by the scans it has
    /// received when the paint starts, and by its state before its latest scan for the rows it
    /// paints after reading the next scan's header (jdcoefct.c, `prev_coef_bits`): neither
    /// depends on what the next scan is.
    struct PictureState: Hashable {
        /// For each component, the scans carrying it received so far, in order.
        var received: [[JPEGScan]]
    }

    /// For each scan of `script`, what the picture shown once it is complete depends on.
    static func pictureStates(_ script: ScanScript) -> [PictureState] {
        let components = (script.scans.flatMap(\.components).max() ?? 0) + 1
        var received = [[JPEGScan]](repeating: [], count: components)
        return script.scans.indices.map { index in
            for component in script.scans[index].components { received[component].append(script.scans[index]) }
            return PictureState(received: received)
        }
    }
}
