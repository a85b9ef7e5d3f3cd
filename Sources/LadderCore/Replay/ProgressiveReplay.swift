package import LadderImaging

/// Replays the progressive loading of a JPEG the way an app's decoder sees it: the file arrives
/// chunk by chunk and, after each chunk, the decoder is asked for the best picture it can show.
///
/// libjpeg-turbo runs in buffered-image mode behind a suspending source, as in browsers. Every
/// scan is rendered at the byte where it completes and compared with the final picture; paints
/// happen at chunk boundaries, once every component has its DC coefficients (browsers show
/// nothing before).
package struct ProgressiveReplay: Sendable {
    package struct Options: Sendable, Equatable {
        /// Bytes delivered at a time.
        package var chunkBytes: Int
        /// Files that start more scans than this are refused before those scans are decoded.
        package var maximumScans: Int
        /// The share of the file by which the first picture must show.
        package var firstPaintBudget: Double
        /// Files with more pixels than this are refused before decoding.
        package var maximumPixels: Int
        /// The number of scans the file must have, when known.
        package var expectedScans: Int?
        /// The width of the view pictures are compared in, in colour (`ScreenQuality`); nil to
        /// measure luma alone.
        package var displayWidth: Int?

        package init(
            chunkBytes: Int = Defaults.chunkBytes, maximumScans: Int = Defaults.maxScans,
            maximumPixels: Int = Defaults.maxPixels, firstPaintBudget: Double = Defaults.firstPaintBudget,
            expectedScans: Int? = nil, displayWidth: Int? = Defaults.displayWidth
        ) {
            self.chunkBytes = chunkBytes
            self.maximumScans = maximumScans
            self.maximumPixels = maximumPixels
            self.firstPaintBudget = firstPaintBudget
            self.expectedScans = expectedScans
            self.displayWidth = displayWidth
        }
    }

    package var options: Options

    /// How far quality may fall from one scan to the next before it counts as falling.
    static let psnrSlack = 0.5
    static let ssimSlack = 0.01
    /// PSNR of a picture one 8-bit level (RMS) from the final one: 20 log10(255) = 48.13 dB.
    static let indistinguishablePSNR = 48.1308

    package init(options: Options = Options()) {
        self.options = options
    }

    /// Replays `bytes`. `frame`, when given, receives each scan's picture in color as it is
    /// rendered (RGB, converted by libjpeg, for a YCbCr file), scaled down by libjpeg to at most `frameSide` pixels on its long side where a
    /// scale of n/8 allows it (a second decoder fed the same bytes renders them). The measures
    /// are on luma whatever the frames: libjpeg renders the Y plane alone, which halves its work.
    package func replay(
        _ bytes: [UInt8], path: String, frameSide: Int = .max, frame: ((Int, DecodedPixels) -> Void)? = nil
    ) -> ReplayReport {
        replayKeepingFinal(bytes, path: path, frameSide: frameSide, frame: frame).report
    }

    /// `replay`, and the final picture: a one-shot decode of the whole file (the Y plane alone
    /// for a YCbCr file; nil when the file is truncated or cannot be decoded whole), for
    /// measuring other pictures against it.
    package func replayKeepingFinal(
        _ bytes: [UInt8], path: String, frameSide: Int = .max, frame: ((Int, DecodedPixels) -> Void)? = nil
    ) -> (report: ReplayReport, final: DecodedPixels?) {
        let replayed = replayKeepingFinal(bytes, path: path, frameSide: frameSide, frame: frame) { _ in [] }
        return (replayed.report, replayed.final)
    }

    /// `replayKeepingFinal`, and the SSIM against the final picture of other pictures, measured
    /// in the same pass as the scans (the final picture's statistics computed once for all of
    /// them; each value is what `ImageQuality.ssim` gives it alone). `others` is called with the
    /// final picture's size once there is one, and returns the pictures at that size (nil for
    /// one that cannot be made). Their values are nil when the replay has no final picture.
    /// With a `displayWidth`, each picture that can show is also measured as the screen shows
    /// it (`ScreenQuality`), with `firstRung` (the variant an app shows first: its name and
    /// file) on screen until a scan beats it.
    package func replayKeepingFinal(
        _ bytes: [UInt8], path: String, frameSide: Int = .max, frame: ((Int, DecodedPixels) -> Void)? = nil,
        firstRung: (name: String, bytes: [UInt8])? = nil, measuring others: (PixelSize) -> [[UInt8]?]
    ) -> (report: ReplayReport, final: DecodedPixels?, others: [Double?]) {
        var report = ReplayReport(
            path: path, bytes: bytes.count, width: 0, height: 0, progressive: false, scans: [], firstPaintOffset: nil,
            firstShownAt: nil, matchesOneShotDecode: false, problems: [])
        func problem(_ kind: ReplayReport.Problem.Kind, _ message: String) {
            report.problems.append(ReplayReport.Problem(kind: kind, message: message))
        }

        // Walk the segments first: a file with too many scans is refused here, before any decoding.
        let structure: JPEGStructure
        do {
            structure = try JPEGStructure(parsing: bytes, scanLimit: options.maximumScans)
        } catch {
            if error.reason.hasPrefix("more than") {
                problem(
                    .tooManyScans, "the file has more than \(options.maximumScans) scans; refused before decoding")
            } else {
                problem(.malformed, "not a well-formed JPEG: \(error)")
            }
            return (report, nil, [])
        }
        report.width = structure.width
        report.height = structure.height
        report.progressive = structure.isProgressive
        guard structure.width * structure.height <= options.maximumPixels else {
            problem(
                .tooManyPixels,
                "\(structure.width)x\(structure.height) is over the limit of \(options.maximumPixels) pixels; refused before decoding"
            )
            return (report, nil, [])
        }
        if structure.isArithmetic {
            problem(.arithmeticCoding, "arithmetic-coded JPEG: Chrome and Firefox cannot decode it")
        }
        let truncated = structure.endOfImage == nil
        if truncated {
            let inside = structure.scans.count
            problem(.truncated, "the file ends inside scan \(inside) at byte \(bytes.count)")
        }
        let decoder: JPEGReplayDecoder
        do {
            // The screen's measure needs the chroma planes; luma alone costs libjpeg about half.
            decoder = try JPEGReplayDecoder(
                bytes, maximumScans: options.maximumScans, lumaOnly: options.displayWidth == nil)
        } catch {
            problem(.undecodable, error.reason)
            return (report, nil, [])
        }
        let frames = frame.flatMap { frame in
            (try? JPEGReplayDecoder(
                bytes, maximumScans: options.maximumScans, rgb: true,
                scaleEighths: JPEGReplayDecoder.scaleEighths(
                    fitting: frameSide, width: structure.width, height: structure.height))).map { ($0, frame) }
        }
        let display = options.displayWidth.map {
            ScreenQuality.displaySize(of: PixelSize(width: structure.width, height: structure.height), displayWidth: $0)
        }
        let rendered = Self.renderScans(
            decoder, structure: structure, chunkBytes: options.chunkBytes, report: &report, frames: frames,
            screen: display)
        if let failure = rendered.failure {
            problem(.undecodable, "decoding stopped at scan \(rendered.lumas.count + 1): \(failure.reason)")
        }
        if decoder.state.warnings > 0 {
            problem(.corruptData, "libjpeg reported \(decoder.state.warnings) warning(s): \(decoder.lastWarning)")
        }
        // The final picture is what a one-shot decode of the whole file gives: libjpeg reading it
        // in one go, apart from the replay. Every scan is measured against it, the last one
        // included, and the replay's last render must be that picture pixel for pixel.
        let complete =
            !truncated && rendered.failure == nil && decoder.state.inputComplete
            && rendered.lumas.count == decoder.state.scansCompleted
        var final: DecodedPixels?
        if complete, let last = rendered.last,
            // Decoded as the replay's decoder renders (luma alone, or in colour for the screen).
            let oneShot = try? DecodedPixels(decodingJPEG: bytes, lumaOnly: options.displayWidth == nil),
            oneShot.width == last.width, oneShot.height == last.height
        {
            final = oneShot
            report.matchesOneShotDecode = oneShot == last
        }

        // Quality of every scan against the final picture (or, for a file that cannot be decoded
        // whole, against the last picture it can show), measured together once the scans are
        // rendered, with the other pictures asked for when there is a final picture.
        var otherSSIMs: [Double?] = []
        if let reference = final?.luma() ?? rendered.lumas.last {
            let otherPlanes = final.map { others(PixelSize(width: $0.width, height: $0.height)) } ?? []
            let ssims = ImageQuality.ssim(
                present: rendered.lumas + otherPlanes, reference: reference, width: decoder.state.width,
                height: decoder.state.height)
            for (index, ssim) in zip(rendered.lumas.indices, ssims) {
                guard let ssim else { continue }
                report.scans[index].psnr =
                    (ImageQuality.psnr(rendered.lumas[index], reference: reference) * 100).rounded() / 100
                report.scans[index].ssim = (ssim * 10_000).rounded() / 10_000
            }
            otherSSIMs = Array(ssims.dropFirst(rendered.lumas.count))
        }
        if final != nil, let display, let width = options.displayWidth {
            Self.measureScreens(rendered.screens, display: display, firstRung: firstRung, report: &report)
            report.displayWidth = width
        }
        report.problems += findings(in: report, structure: structure)
        return (report, final, otherSSIMs)
    }

    /// What `renderScans` produced: each scan's luma plane, the last picture whole, and the
    /// error that stopped the decoding early, if one did.
    struct RenderedScans {
        var lumas: [[UInt8]] = []
        /// Each scan as the screen shows it (`ScreenQuality.shown`), when asked for.
        var screens: [[[UInt8]]] = []
        var last: DecodedPixels?
        var failure: ImagingError?
    }

    /// Feeds `decoder` the file up to every chunk boundary and to where each scan becomes
    /// renderable on its own (libjpeg has read the next scan's header, before any of its data,
    /// or the end), renders each scan once, and records in `report` where it can be shown.
    /// Each scan but the last is painted as a browser paints it, just before: once its data is
    /// complete and before libjpeg reads the next scan's header (`paintAsShown`), so its picture
    /// is the one a decoder given only those scans shows.
    /// `frames`, when given, is a second decoder of the same file, fed alongside, whose picture
    /// of each scan (by 1-based number) goes to its receiver; it stops at its first failure.
    static func renderScans(
        _ decoder: JPEGReplayDecoder, structure: JPEGStructure, chunkBytes: Int, report: inout ReplayReport,
        frames: (decoder: JPEGReplayDecoder, receive: (Int, DecodedPixels) -> Void)?, screen: PixelSize? = nil
    ) -> RenderedScans {
        let length = decoder.length
        let chunk = max(1, chunkBytes)
        var stops = Set(stride(from: chunk, to: length, by: chunk))
        stops.insert(length)
        for scan in structure.scans.dropFirst() where scan.dataOffset < length { stops.insert(scan.dataOffset) }
        if let end = structure.endOfImage { stops.insert(min(end, length)) }
        // Where each scan but the last is painted: its data and the marker after it have arrived.
        var paintAt: [Int: Int] = [:]
        for (number, (scan, next)) in zip(1..., zip(structure.scans, structure.scans.dropFirst()))
        where scan.endOffset + 2 < next.dataOffset && next.dataOffset < length {
            paintAt[scan.endOffset + 2] = number
            stops.insert(scan.endOffset + 2)
        }

        var rendered = RenderedScans()
        var painter = ScanPainter(decoder)
        var framePainter = frames.map { ScanPainter($0.decoder) }
        var shown = 0
        var frames = frames
        do throws(ImagingError) {
            for stop in stops.sorted() {
                let paint = paintAt[stop].flatMap { $0 == rendered.lumas.count + 1 ? $0 : nil }
                try painter.advance(to: stop, painting: paint)
                do {
                    try framePainter?.advance(to: stop, painting: paint)
                } catch {
                    (frames, framePainter) = (nil, nil)
                }
                // A paint waiting for the next scan's header is finished before libjpeg reads on.
                if let waiting = painter.painting {
                    guard stop < length else {
                        throw ImagingError(
                            operation: "paint scan \(waiting)", path: nil,
                            reason: "its last rows wait for data past the end of the file")
                    }
                    continue
                }
                let state = try decoder.advance(to: stop)
                if let decoder = frames?.decoder, (try? decoder.advance(to: stop)) == nil { frames = nil }
                // A scan can be rendered alone once libjpeg has moved past it.
                let renderable =
                    state.inputComplete ? state.scansCompleted : min(state.scansCompleted, state.inputScan - 1)
                while rendered.lumas.count < renderable {
                    let number = rendered.lumas.count + 1
                    let pixels: DecodedPixels
                    if let painted = painter.pictures.removeValue(forKey: number) {
                        pixels = painted
                    } else {
                        pixels = try decoder.render(scan: number)
                    }
                    rendered.lumas.append(pixels.luma())
                    if let screen { rendered.screens.append(ScreenQuality.shown(pixels, at: screen)) }
                    rendered.last = pixels
                    report.scans.append(
                        ReplayReport.Scan(
                            scan: number, endOffset: stop, displayable: state.allDCReceived, shownAt: nil, psnr: 0,
                            ssim: 0))
                    if state.allDCReceived, report.firstPaintOffset == nil { report.firstPaintOffset = stop }
                    if let (decoder, receive) = frames {
                        if let picture = framePainter?.pictures.removeValue(forKey: number)
                            ?? (try? decoder.render(scan: number))
                        {
                            receive(number, picture)
                        } else {
                            frames = nil
                        }
                    }
                }
                let isChunkBoundary = stop % chunk == 0 || stop == length
                if isChunkBoundary, state.allDCReceived, rendered.lumas.count > shown {
                    shown = rendered.lumas.count
                    report.scans[shown - 1].shownAt = stop
                    if report.firstShownAt == nil { report.firstShownAt = stop }
                }
            }
        } catch {
            rendered.failure = error
        }
        return rendered
    }

    /// Measures the scans that can show, as the screen shows them (`screens`, at `display`),
    /// against the last, with `firstRung` stretched to the view, and records in `report` each
    /// scan's measure, the first rung's, where the file's picture replaces what is on screen,
    /// and the mean on screen over the download.
    static func measureScreens(
        _ screens: [[[UInt8]]], display: PixelSize, firstRung: (name: String, bytes: [UInt8])?,
        report: inout ReplayReport
    ) {
        guard let reference = screens.last, screens.count == report.scans.count else { return }
        let shown = report.scans.indices.filter { report.scans[$0].displayable }
        let decodedRung = firstRung.flatMap { rung in
            (try? DecodedPixels(decodingJPEG: rung.bytes)).map { (rung.name, $0) }
        }
        let rung = decodedRung.map { ($0.0, ScreenQuality.shown($0.1, at: display)) }
        if let (_, pixels) = decodedRung {
            report.firstRungIsFullSize = pixels.width >= report.width && pixels.height >= report.height
        }
        let values = ScreenQuality.measure(
            shown.map { screens[$0] } + (rung.map { [$0.1] } ?? []), reference: reference, shownAt: display)
        func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
        for (index, value) in zip(shown, values) { report.scans[index].screen = rounded(value) }
        if let rung {
            report.firstRung = rung.0
            report.firstRungScreen = rounded(values[shown.count])
        }
        let timeline = ScreenTimeline(
            bytes: report.bytes,
            paints: zip(shown, values).map { ScreenTimeline.Paint(offset: report.scans[$0].endOffset, quality: $1) },
            firstRung: rung == nil ? nil : values[shown.count])
        report.fullShownAt = timeline.fullShownOffset
        report.screenOverDownload = rounded(timeline.meanOnScreen)
    }

    /// The checks on a finished replay: scan count, first paint, rising quality.
    private func findings(in report: ReplayReport, structure: JPEGStructure) -> [ReplayReport.Problem] {
        var problems: [ReplayReport.Problem] = []
        func problem(_ kind: ReplayReport.Problem.Kind, _ message: String) {
            problems.append(ReplayReport.Problem(kind: kind, message: message))
        }
        if let expected = options.expectedScans, report.scans.count != expected,
            !report.problems.contains(where: { $0.kind == .truncated })
        {
            problem(.scanCount, "\(report.scans.count) scans, expected \(expected)")
        }
        // The budget is a property of the file: the byte after which the first picture can be
        // shown, whatever the chunk size of the delivery. A first picture that arrives within
        // the first round trip shows as early as any picture can, whatever its share.
        // With a first rung on screen, the budget is where the file's picture beats it.
        if let rung = report.firstRung, report.firstRungIsFullSize != true, let share = report.fullShownShare,
            let offset = report.fullShownAt, report.scans.count > 1, share > options.firstPaintBudget,
            offset > ReplaySettings.firstRoundTripBytes
        {
            problem(
                .firstPaint,
                "the picture shows better than \(rung) only after \(percent(share)) of the file, over the budget of \(percent(options.firstPaintBudget))"
            )
        } else if report.firstRung == nil, let share = report.firstPaintShare, let offset = report.firstPaintOffset,
            report.scans.count > 1, share > options.firstPaintBudget, offset > ReplaySettings.firstRoundTripBytes
        {
            problem(
                .firstPaint,
                "the first picture can show only after \(percent(share)) of the file, over the budget of \(percent(options.firstPaintBudget))"
            )
        }
        for (previous, next) in Self.lumaSteps(report.scans, structure: structure)
        where Self.isWorse(next, than: previous) {
            problem(
                .quality,
                "scan \(next.scan) is further from the final picture than scan \(previous.scan) (PSNR \(next.psnr) dB after \(previous.psnr), SSIM \(next.ssim) after \(previous.ssim))"
            )
        }
        return problems
    }

    /// Each scan that carries luma, paired with the one that carried luma before it. The
    /// measures are on luma, which a chroma scan's data leaves as it was; the luma picture can
    /// still change there, because libjpeg decides its block smoothing from what the scan
    /// headers read so far announce, the next one's included: that is the decoder, not the file.
    static func lumaSteps(
        _ scans: [ReplayReport.Scan], structure: JPEGStructure
    ) -> [(ReplayReport.Scan, ReplayReport.Scan)] {
        let luma = scans.filter { scan in
            scan.scan == 1
                || structure.scans.indices.contains(scan.scan - 1)
                    && structure.scans[scan.scan - 1].components.contains(0)
        }
        return Array(zip(luma, luma.dropFirst()))
    }

    /// True when `next` is further from the final picture than `previous` in a way one could
    /// see: one measure falls by more than its slack (0.5 dB of PSNR, 0.01 of SSIM) while the
    /// other does not rise. On pictures a few pixels wide, SSIM's 11x11 window and PSNR can
    /// disagree by that much on a scan that brings the picture closer. A picture whose luma is
    /// less than one level (RMS) from the final one, PSNR of `indistinguishablePSNR` or more,
    /// looks like it on an 8-bit screen, so no fall to it is seen.
    package static func isWorse(_ next: ReplayReport.Scan, than previous: ReplayReport.Scan) -> Bool {
        guard next.psnr < indistinguishablePSNR else { return false }
        let ssimFalls = next.ssim < previous.ssim - ssimSlack
        let psnrFalls = next.psnr < previous.psnr - psnrSlack
        return (ssimFalls && next.psnr <= previous.psnr) || (psnrFalls && next.ssim <= previous.ssim)
    }
}

func percent(_ share: Double) -> String {
    let value = (share * 1000).rounded() / 10
    return value == value.rounded() ? "\(Int(value)) %" : "\(value) %"
}
