import Foundation
import LadderCore
import LadderImaging
import Testing

/// What the screen shows while a full-size file downloads, and the choice made for it.
@Suite("What the screen shows")
struct ScreenQualityTests {
    init() { TestImages.start() }

    @Test("a picture is shown at the view's width, never enlarged, its aspect ratio kept")
    func displaySize() {
        #expect(
            ScreenQuality.displaySize(of: PixelSize(width: 2560, height: 1920), displayWidth: 1280)
                == PixelSize(width: 1280, height: 960))
        #expect(
            ScreenQuality.displaySize(of: PixelSize(width: 1000, height: 3000), displayWidth: 1280)
                == PixelSize(width: 1000, height: 3000))
        #expect(
            ScreenQuality.displaySize(of: PixelSize(width: 1920, height: 1081), displayWidth: 1280)
                == PixelSize(width: 1280, height: 721))
    }

    @Test("the first rung stays on screen until a picture of the file beats it, then the best so far")
    func timeline() {
        // A file of 100 bytes with pictures after 20, 50 and 100 bytes.
        let paints = [(20, 0.5), (50, 0.9), (100, 1.0)].map { ScreenTimeline.Paint(offset: $0.0, quality: $0.1) }
        let alone = ScreenTimeline(bytes: 100, paints: paints, firstRung: nil)
        #expect(alone.fullShownOffset == 20)
        // 19 bytes of nothing, 30 of 0.5, 50 of 0.9, 1 of 1.0.
        #expect(abs(alone.meanOnScreen - (30 * 0.5 + 50 * 0.9 + 1.0) / 100) < 1e-12)
        let afterThumbnail = ScreenTimeline(bytes: 100, paints: paints, firstRung: 0.7)
        #expect(afterThumbnail.fullShownOffset == 50)
        #expect(afterThumbnail.fullShownShare == 0.5)
        #expect(abs(afterThumbnail.meanOnScreen - (49 * 0.7 + 50 * 0.9 + 1.0) / 100) < 1e-12)
        // A later, worse picture is not shown.
        let dip = ScreenTimeline(
            bytes: 100, paints: [.init(offset: 20, quality: 0.8), .init(offset: 60, quality: 0.6)], firstRung: 0.7)
        #expect(abs(dip.meanOnScreen - (19 * 0.7 + 81 * 0.8) / 100) < 1e-12)
    }

    /// A colour photo-like picture, its default full-size JPEG and its large_thumb.
    static func fullAndThumbnail(width: Int = 320, height: Int = 240) throws -> (full: [UInt8], thumbnail: [UInt8]) {
        let image = try ProgressiveSubjects.noisyPhoto(width: width, height: height)
        let full = try image.jpegEncoded(JPEGEncoding(quality: 85, fullChroma: false))
        let thumbnail = try image.resized(to: PixelSize(width: width / 4, height: height / 4)).jpegEncoded(
            JPEGEncoding(quality: 82, fullChroma: false))
        return (full, thumbnail)
    }

    @Test("measured on the whole image, every candidate's estimate is what a replay of its file shows")
    func estimateIsTheReplay() throws {
        let (full, thumbnail) = try Self.fullAndThumbnail()
        let chooser = ScanScriptChooser(scans: 5, firstPictureBudget: 1, scoringPixels: Int.max, displayWidth: 200)
        let (coefficients, estimates) = try chooser.estimates(for: full, firstRung: thumbnail)
        #expect(estimates.count == 6)
        for estimate in estimates {
            let written = try coefficients.written(scans: estimate.script.scans)
            let report = ProgressiveReplay(options: .init(chunkBytes: Int.max, displayWidth: 200))
                .replayKeepingFinal(written, path: "c.jpg", firstRung: (name: "large_thumb", bytes: thumbnail)) {
                    _ in []
                }.report
            #expect(report.firstRung == "large_thumb")
            let replayed = try #require(report.screenOverDownload)
            #expect(abs(estimate.quality - replayed) < 1e-4, "\(estimate.script)")
            #expect(report.fullShownAt == estimate.shownAt, "\(estimate.script)")
        }
    }

    @Test("with a thumbnail on screen, the file's first pictures that are worse do not count")
    func thumbnailOnScreen() throws {
        let (full, thumbnail) = try Self.fullAndThumbnail()
        let chooser = ScanScriptChooser(scans: 5, firstPictureBudget: 1, scoringPixels: Int.max, displayWidth: 200)
        let (_, alone) = try chooser.estimates(for: full)
        let (_, shown) = try chooser.estimates(for: full, firstRung: thumbnail)
        for (a, b) in zip(alone, shown) {
            #expect(a.firstRung == nil && b.firstRung != nil)
            #expect(b.quality >= a.quality, "a thumbnail on screen is never worse than a blank screen")
            #expect(b.shownAt >= a.shownAt)
        }
        // The DC alone (an eighth of the resolution) does not beat a quarter-size thumbnail.
        #expect(shown.contains { $0.shownAt > $0.showableAt[0] })
    }
}
