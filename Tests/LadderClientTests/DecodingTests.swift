import Foundation
import LadderClient
import LadderManifest
import Testing

/// What the client draws, against libjpeg-turbo's own one-shot decoder (djpeg).
@Suite("Client decoding", .serialized)
struct DecodingTests {
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(
        "each picture drawn at a scan end is djpeg's decode of the same prefix with an end of image, within rounding",
        .enabled(if: ExternalTools.djpeg != nil || isCI, "djpeg (libjpeg-turbo-progs) is not installed"),
        // A view that needs the full rung at its size, and one that shows it at three quarters.
        arguments: [4000, 700])
    func scansAreDjpegs(viewSide: Int) async throws {
        guard ExternalTools.djpeg != nil else {
            Issue.record("djpeg (libjpeg-turbo-progs) is not installed; scripts/bootstrap installs it")
            return
        }
        let ladder = try ServedLadder(subjects: ())
        // Small chunks: most reads end inside a scan, so the decoder is fed a scan in pieces.
        ladder.server.configure { $0.bytesPerSecond = 600_000 }
        let client = ladder.client(limit: 1, everyScan: true)
        var compared = 0
        for sha1 in ladder.sha1s {
            let timeline = try await Timeline.record(client.load(.sha1(sha1), width: viewSide, height: viewSide))
            #expect(timeline.failures.isEmpty)
            let ends = try #require(ladder.manifest.images[sha1]?.variants["full"]?.scanEnds)
            #expect(timeline.scanFrames.map(\.scans) == Array(1..<ends.count), "every scan before the whole file")
            for frame in timeline.frames {
                guard let rung = frame.rung else { continue }
                let file = [UInt8](try ladder.fileBytes(sha1, rung.name))
                let bytes: [UInt8]
                switch frame.stage {
                case .scans(let count): bytes = Array(file.prefix(ends[count - 1])) + [0xFF, 0xD9]
                case .whole: bytes = file
                case .placeholder: continue
                }
                // The fewest eighths of the rung's size that cover the view (aspect fit).
                let shown = Ladder.Fit.aspectFit.shownSize(
                    width: rung.width, height: rung.height, inWidth: viewSide, height: viewSide)
                let eighths = try #require((1...8).first { (rung.width * $0 + 7) / 8 >= shown.width })
                let oracle = try #require(try ExternalTools.djpegRGB(bytes, scale: "\(eighths)/8"))
                let label = "\(rung.name) \(frame.stage) at \(eighths)/8"
                #expect(frame.picture.width == oracle.width && frame.picture.height == oracle.height, "\(label)")
                #expect(frame.picture.components == 3)
                guard frame.picture.samples.count == oracle.samples.count else { continue }
                let largest = zip(frame.picture.samples, oracle.samples).reduce(0) {
                    max($0, abs(Int($1.0) - Int($1.1)))
                }
                #expect(largest <= 1, "\(label): differs from djpeg by up to \(largest)")
                compared += 1
            }
        }
        #expect(compared >= ladder.sha1s.count * 5, "every scan and rung of every image was compared")
    }

    @Test("a file that is not the picture the manifest describes is refused from its header, before any scan is drawn")
    func wrongPicture() async throws {
        let ladder = try ServedLadder(photos: 1)
        let sha1 = ladder.sha1s[0]
        let variant = try #require(ladder.manifest.images[sha1]?.variants["full"])
        // The full-size file with one more column in its frame header (SOF2: marker, length,
        // precision, height, then width).
        var impostor = [UInt8](try ladder.fileBytes(sha1, "full"))
        let frame = try #require(impostor.indices.dropLast().first { impostor[$0] == 0xFF && impostor[$0 + 1] == 0xC2 })
        let width = variant.width + 1
        impostor[frame + 7] = UInt8(width >> 8)
        impostor[frame + 8] = UInt8(width & 0xFF)
        // The decoder refuses it from the header, before a scan is drawn.
        let rung = try #require(ladder.rung(sha1, "full"))
        let decoder = LibJPEGDecoder().makeDecoder(for: rung.jpeg, of: rung, width: 4000, height: 4000)
        let prefix = Data(impostor.prefix(rung.scanEnds[0] + 2))
        #expect {
            _ = try decoder.picture(from: prefix, scans: 1, isComplete: false)
        } throws: { error in
            guard case .decoding(_, let reason) = error as? LadderError else { return false }
            return reason.contains("\(width)x\(variant.height)")
        }

        // A load draws none of it: refused from its header, or, when the whole file came at once,
        // by its check.
        ladder.server.configure { $0.replaced = [ladder.urlPath(sha1, "full"): impostor] }
        let timeline = try await Timeline.record(ladder.client(limit: 1).load(.sha1(sha1), width: 4000, height: 4000))
        #expect(timeline.scanFrames.isEmpty, "no scan of another picture is drawn")
        #expect(timeline.failures.map(\.0) == ["full"])
        #expect(timeline.rungNames == ["small_thumb", "large_thumb"])
    }
}
