import LadderCore
import LadderImaging
import Testing

@Suite("Progressive replay")
struct ReplayTests {
    init() { TestImages.start() }

    static func fiveScanJPEG(width: Int = 900, height: Int = 600) throws -> [UInt8] {
        try TestImages.gradient(width: width, height: height).jpegEncoded(
            JPEGEncoding(quality: 85, fullChroma: false, scans: ScanScript.recommendedColor.scans))
    }

    @Test("a 5-scan file shows 5 pictures at rising offsets, each closer to the final one, the last identical")
    func fiveScans() throws {
        let jpeg = try Self.fiveScanJPEG()
        let report = ProgressiveReplay(options: .init(chunkBytes: 4096, expectedScans: 5)).replay(jpeg, path: "x.jpg")
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.scans.count == 5)
        let offsets = report.scans.map(\.endOffset)
        #expect(offsets == offsets.sorted() && Set(offsets).count == 5)
        #expect(offsets.last == jpeg.count)
        // Each scan is complete right after its data: at most the next scan's header later.
        let structure = try JPEGStructure(parsing: jpeg)
        for (scan, segment) in zip(report.scans, structure.scans) {
            #expect(scan.endOffset >= segment.endOffset && scan.endOffset <= segment.endOffset + 400)
        }
        for (previous, next) in zip(report.scans, report.scans.dropFirst()) {
            #expect(next.psnr >= previous.psnr - 0.5 && next.ssim >= previous.ssim - 0.01)
        }
        #expect(report.scans.last?.psnr == 99 && report.scans.last?.ssim == 1)
        #expect(report.scans[0].psnr < 40, "the first picture is visibly rough")
        #expect(report.matchesOneShotDecode)
        #expect(report.firstPaintOffset == report.scans[0].endOffset)
        #expect(try #require(report.firstShownAt) % 4096 == 0)
    }

    /// Files whose last paint must equal a one-shot decode: libjpeg's default scripts and the
    /// recommended one, 4:2:0 and 4:4:4, grayscale, baseline, and a script that never sends
    /// luma's AC coefficients 6-63, so that libjpeg smooths the final picture's blocks too.
    static func finalPictureSubjects() throws -> [(String, [UInt8])] {
        let photo = try ProgressiveSubjects.noisyPhoto(width: 500, height: 333).inMemory()
        let gray = try photo.converted(to: .grayscale).inMemory()
        let partial = [
            JPEGScan(components: [0, 1, 2], ss: 0, se: 0, ah: 0, al: 0),
            JPEGScan(components: [0], ss: 1, se: 5, ah: 0, al: 0),
            JPEGScan(components: [1], ss: 1, se: 63, ah: 0, al: 0),
            JPEGScan(components: [2], ss: 1, se: 63, ah: 0, al: 0),
        ]
        return [
            ("recommended 4:2:0", try fiveScanJPEG(width: 500, height: 333)),
            (
                "recommended 4:4:4",
                try photo.jpegEncoded(
                    JPEGEncoding(quality: 80, fullChroma: true, scans: ScanScript.recommendedColor.scans))
            ),
            (
                "grayscale",
                try gray.jpegEncoded(
                    JPEGEncoding(quality: 80, fullChroma: false, scans: ScanScript.recommendedGrayscale.scans))
            ),
            (
                "luma AC 6-63 never sent",
                try photo.jpegEncoded(JPEGEncoding(quality: 80, fullChroma: false, scans: partial))
            ),
            ("libvips progressive", try photo.encoded(as: ".jpg[Q=85,interlace]")),
            ("baseline", try photo.jpegEncoded(JPEGEncoding(quality: 80, fullChroma: false))),
        ]
    }

    @Test(
        "the last paint is the picture djpeg decodes from the whole file, byte for byte, so no second decode is needed",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func finalPictureIsOneShotDecode() throws {
        for (name, jpeg) in try Self.finalPictureSubjects() {
            let (report, final) = ProgressiveReplay().replayKeepingFinal(jpeg, path: name)
            let picture = try #require(final, "\(name): \(report.problems)")
            let oracle = try ExternalTools.djpegLuma(jpeg)
            #expect(report.matchesOneShotDecode && report.problems.isEmpty, "\(name): \(report.problems)")
            #expect(picture.width == oracle.width && picture.height == oracle.height, "\(name)")
            #expect(picture.luma() == oracle.samples, "\(name)")
        }
    }

    @Test(
        "a fall in quality is reported only when the later picture differs from the final one by a level or more",
        arguments: [
            // Block smoothing moved a picture that was already the final one by a fraction of a
            // level: no screen shows it (seen on saturated grids of the adversarial set).
            (99.0, 1.0, 70.45, 1.0, false),
            (64.5, 0.9998, 51.54, 0.9933, false),
            // A fall one can see: smooth waves after a lone high-frequency coefficient.
            (37.1, 0.95, 35.0, 0.93, true),
            (52.0, 0.999, 45.0, 0.98, true),
        ])
    func visibleFalls(previous: Double, previousSSIM: Double, next: Double, nextSSIM: Double, reported: Bool) {
        let before = ReplayReport.Scan(
            scan: 3, endOffset: 1000, displayable: true, shownAt: 1000, psnr: previous, ssim: previousSSIM)
        let after = ReplayReport.Scan(
            scan: 4, endOffset: 2000, displayable: true, shownAt: 2000, psnr: next, ssim: nextSSIM)
        #expect(ProgressiveReplay.isWorse(after, than: before) == reported)
    }

    @Test("other pictures measured in the replay's pass get their own SSIM against the final picture")
    func othersInTheSamePass() throws {
        let jpeg = try Self.fiveScanJPEG(width: 640, height: 424)
        let replay = ProgressiveReplay(options: .init(chunkBytes: 8192, expectedScans: 5))
        var asked: [PixelSize] = []
        let measured = replay.replayKeepingFinal(jpeg, path: "c.jpg") { size in
            asked.append(size)
            let flat = [UInt8](repeating: 128, count: size.width * size.height)
            return [flat, nil, [1, 2, 3]]
        }
        let final = try #require(measured.final)
        #expect(asked == [PixelSize(width: 640, height: 424)])
        let flat = [UInt8](repeating: 128, count: 640 * 424)
        let alone = ImageQuality.ssim(flat, reference: final.luma(), width: 640, height: 424)
        // Pictures that cannot be made, or are of another size, have no value.
        #expect(measured.others == [alone, nil, nil])
        #expect(measured.report == replay.replay(jpeg, path: "c.jpg"), "the scans' measures do not change")
        // A truncated file has no final picture: nothing else is measured.
        let cut = replay.replayKeepingFinal(Array(jpeg.prefix(jpeg.count * 2 / 3)), path: "c.jpg") { _ in [flat] }
        #expect(cut.final == nil && cut.others.isEmpty)
    }

    @Test("frames come in colour at the largest eighth within the side asked for, and change no measure")
    func framesLeaveMeasures() throws {
        let jpeg = try Self.fiveScanJPEG(width: 640, height: 424)
        let replay = ProgressiveReplay(options: .init(chunkBytes: 8192, expectedScans: 5))
        var frames: [Int] = []
        var sizes: [[Int]] = []
        var last: DecodedPixels?
        let withFrames = replay.replay(jpeg, path: "c.jpg", frameSide: 250) { scan, pixels in
            #expect(pixels.components == 3)
            frames.append(scan)
            sizes.append([pixels.width, pixels.height])
            last = pixels
        }
        // The last frame is the whole file's picture at 3/8, in RGB as libjpeg converts it: what
        // djpeg, libjpeg-turbo's own decoder, makes of the file at that scale.
        if ExternalTools.runs(with: ExternalTools.djpeg) {
            let oracle = try ExternalTools.djpegRGB(jpeg, scale: "3/8")
            let frame = try #require(last)
            #expect(frame.colorModel == .rgb)
            #expect(frame.width == oracle.width && frame.height == oracle.height)
            let same = frame.samples == oracle.samples
            #expect(same, "the last frame is djpeg's RGB picture")
        }
        var fullSize: [[Int]] = []
        _ = replay.replay(jpeg, path: "c.jpg") { _, pixels in fullSize.append([pixels.width, pixels.height]) }
        let without = replay.replay(jpeg, path: "c.jpg")
        #expect(frames == [1, 2, 3, 4, 5])
        // 3/8 of 640 x 424; 4/8 would be 320 px wide.
        #expect(sizes == Array(repeating: [240, 159], count: 5))
        #expect(fullSize == Array(repeating: [640, 424], count: 5))
        #expect(without.scans == withFrames.scans)
        #expect(without.matchesOneShotDecode && withFrames.matchesOneShotDecode)
        #expect(without.problems.isEmpty && withFrames.problems.isEmpty)
    }

    @Test(
        "each scan's frame is djpeg's picture of the file cut where the scan ends: the DC scan smoothed as browsers draw it",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func framesAreDjpegsOfPrefixes() throws {
        // A smooth picture, whose DC scan libjpeg smooths, and a script whose second scan brings
        // luma's lowest coefficients: read before the DC scan is painted, that scan's header
        // makes libjpeg count them as known and paint the DC scan's blocks unsmoothed.
        let jpeg = try Self.fiveScanJPEG(width: 320, height: 240)
        let structure = try JPEGStructure(parsing: jpeg)
        var frames: [Int: DecodedPixels] = [:]
        let report = ProgressiveReplay(options: .init(chunkBytes: 4096, expectedScans: 5)).replay(jpeg, path: "c.jpg") {
            frames[$0] = $1
        }
        #expect(report.problems.isEmpty)
        #expect(frames.keys.sorted() == [1, 2, 3, 4, 5])
        for (index, scan) in structure.scans.enumerated() {
            let cut = Array(jpeg.prefix(scan.endOffset)) + [0xFF, 0xD9]
            let oracle = try ExternalTools.djpegRGB(cut)
            let frame = try #require(frames[index + 1])
            #expect(frame.width == oracle.width && frame.height == oracle.height)
            let largest = zip(frame.samples, oracle.samples).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            #expect(largest <= 1, "scan \(index + 1) differs from djpeg's picture of its prefix by up to \(largest)")
        }
    }

    @Test("quality over the download: the mean over the bytes of what is on screen, 0 before the first picture")
    func downloadQualityDefinition() {
        let quality = DownloadQuality(
            bytes: 100,
            paints: [
                .init(scan: 1, offset: 20, ssim: 0.5, psnr: 25), .init(scan: 2, offset: 60, ssim: 0.9, psnr: 35),
                .init(scan: 3, offset: 100, ssim: 1, psnr: 99),
            ])
        // Bytes 1-19 show nothing, 20-59 scan 1, 60-99 scan 2, byte 100 the final picture.
        #expect(abs(quality.meanSSIM - (0.5 * 40 + 0.9 * 40 + 1) / 100) < 1e-12)
        #expect(abs(quality.meanPSNR() - (25.0 * 40 + 35 * 40 + 60) / 100) < 1e-12, "capped at 60 dB")
        #expect(quality.firstPaintShare == 0.2)
        #expect(DownloadQuality(bytes: 100, paints: []).meanSSIM == 0)
    }

    @Test("quality over the download of a real file: measured alone as by a full replay, and 1/N for a baseline file")
    func downloadQualityMeasured() throws {
        let jpeg = try Self.fiveScanJPEG()
        let measured = try DownloadQuality(measuring: jpeg)
        let replayed = DownloadQuality(ProgressiveReplay().replay(jpeg, path: "x.jpg"))
        #expect(measured.paints.map(\.offset) == replayed.paints.map(\.offset))
        #expect(abs(measured.meanSSIM - replayed.meanSSIM) < 1e-4)
        #expect(measured.meanSSIM > 0.3 && measured.meanSSIM < 0.99, "\(measured.meanSSIM)")
        #expect(measured.paints.last?.ssim == 1 && measured.paints.count == 5)

        let baseline = try TestImages.gradientJPEG(width: 400, height: 300)
        let flat = try DownloadQuality(measuring: baseline)
        #expect(abs(flat.meanSSIM - 1 / Double(baseline.count)) < 1e-12, "shown only once complete")

        #expect(throws: ImagingError.self) { try DownloadQuality(measuring: Array(jpeg.prefix(jpeg.count / 2))) }
        #expect(throws: ImagingError.self) { try DownloadQuality(measuring: Array("not a JPEG".utf8)) }
    }

    @Test("a baseline JPEG gives one picture, at the end")
    func baseline() throws {
        let jpeg = try TestImages.gradientJPEG(width: 400, height: 300)
        let report = ProgressiveReplay().replay(jpeg, path: "b.jpg")
        #expect(!report.progressive)
        #expect(report.scans.count == 1)
        #expect(report.scans[0].endOffset == jpeg.count && report.scans[0].shownAt == jpeg.count)
        #expect(report.problems.isEmpty)
    }

    @Test("an EXIF thumbnail's own markers do not count as scans")
    func exifThumbnail() throws {
        let report = ProgressiveReplay().replay(try TestImages.cameraJPEG(), path: "c.jpg")
        #expect(report.scans.count == 1)
        #expect(report.problems.isEmpty)
    }

    @Test("a truncated file is reported, with the pictures it can still show")
    func truncated() throws {
        let jpeg = try Self.fiveScanJPEG()
        let cut = Array(jpeg.prefix(jpeg.count * 3 / 4))
        let report = ProgressiveReplay().replay(cut, path: "t.jpg")
        #expect(report.problems.contains { $0.kind.rawValue == "truncated" })
        #expect(report.scans.count >= 3)
    }

    @Test("a file with more than 100 scans is refused before decoding")
    func manyScans() throws {
        // DC, then every AC coefficient in two successive-approximation steps: 127 scans.
        var scans = [JPEGScan(components: [0], ss: 0, se: 0, ah: 0, al: 0)]
        for coefficient in 1...63 {
            scans.append(JPEGScan(components: [0], ss: coefficient, se: coefficient, ah: 0, al: 1))
        }
        for coefficient in 1...63 {
            scans.append(JPEGScan(components: [0], ss: coefficient, se: coefficient, ah: 1, al: 0))
        }
        var pixels = [UInt8](repeating: 0, count: 64 * 64)
        for index in pixels.indices { pixels[index] = UInt8(index % 251) }
        let image = try Image(pixels: pixels, width: 64, height: 64, bands: 1, space: .grayscale)
        let jpeg = try image.jpegEncoded(JPEGEncoding(quality: 90, fullChroma: true, scans: scans))
        #expect(try JPEGStructure(parsing: jpeg).scans.count == 127)
        let report = ProgressiveReplay().replay(jpeg, path: "bomb.jpg")
        #expect(report.problems.map(\.kind.rawValue) == ["too-many-scans"])
        #expect(report.scans.isEmpty, "nothing was decoded")
    }

    @Test("damage the decoder notices is reported, and no damage crashes the replay", arguments: [0.3, 0.5, 0.8])
    func damaged(_ position: Double) throws {
        let jpeg = try Self.fiveScanJPEG(width: 300, height: 200)
        let index = Int(Double(jpeg.count) * position)
        // Garbage in the entropy-coded data: the replay runs to its end whatever it decodes.
        var garbled = jpeg
        for offset in 0..<40 { garbled[index + offset] = UInt8((offset * 37) % 256) }
        let garbledReport = ProgressiveReplay().replay(garbled, path: "g.jpg")
        // libjpeg itself, reading the garbled file to its end, is the oracle: the replay reports
        // damage exactly when libjpeg notices some (garbage can also decode as valid codes).
        let oracle = try? JPEGEntropyRead(reading: garbled, memoryLimit: 256 << 20)
        let noticed = oracle.map { $0.warnings > 0 } ?? true
        #expect(garbledReport.problems.isEmpty == !noticed, "\(garbledReport.problems)")
        for problem in garbledReport.problems { #expect(!problem.message.isEmpty, "\(problem.kind)") }
        // A marker that cuts the data short: the decoder notices.
        var cut = jpeg
        cut[index] = 0xFF
        cut[index + 1] = 0xD9
        let cutReport = ProgressiveReplay().replay(cut, path: "c.jpg")
        #expect(!cutReport.problems.isEmpty)
    }

    @Test("not a JPEG at all is reported as malformed")
    func notJPEG() {
        let report = ProgressiveReplay().replay(Array("GIF89a and more".utf8), path: "n.jpg")
        #expect(report.problems.map(\.kind.rawValue) == ["malformed"])
    }

    @Test("the ladder timeline requests rungs one after another and shows only better pictures")
    func timeline() {
        let profile = NetworkProfile(name: "test", downlinkKilobitsPerSecond: 800, roundTripMilliseconds: 100)
        let rungs = [
            LadderTimeline.Rung(variant: "small", bytes: 5000, paints: [.init(scan: nil, offset: 5000, ssim: 0.6)]),
            LadderTimeline.Rung(variant: "large", bytes: 50000, paints: [.init(scan: nil, offset: 50000, ssim: 0.9)]),
            LadderTimeline.Rung(
                variant: "full", bytes: 200_000,
                paints: [.init(scan: 1, offset: 40000, ssim: 0.85), .init(scan: 2, offset: 200_000, ssim: 1)]),
        ]
        let timeline = LadderTimeline.simulate(rungs, over: profile)
        // 100 ms round trip, then 5000 bytes at 100 kB/s.
        #expect(timeline.firstPictureSeconds == 0.15)
        #expect(
            timeline.events.map(\.shown) == [true, true, false, true],
            "the full file's first scan is worse than the large thumb")
        #expect(timeline.events[1].seconds == 0.15 + 0.6)
        #expect(timeline.completeSeconds == 0.75 + 2.1)
    }
}
