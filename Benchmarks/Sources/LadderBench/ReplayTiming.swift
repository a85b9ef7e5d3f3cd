import Foundation
import LadderCore
import LadderImaging

/// `ladder-bench replay-timing FILE... [--rounds N]` (for scripts/replay-bench): times, in
/// this process and interleaved round by round, a one-shot decode of each file (libjpeg-turbo,
/// the whole picture, as a viewer given the complete file does), `ladder replay`'s work on it,
/// the scoring of its quality over the download, and SSIM of one picture at the file's size.
/// Prints one JSON object per file with the median seconds of each, in wall time and in CPU time of
/// the process (all its threads: the replay measures on all cores, which wall time hides).
struct ReplayTiming {
    var files: [String]
    var rounds = 7

    struct TimingLine: Encodable {
        var file: String
        var pixels: Int
        var rounds: Int
        var decodeSeconds: Double
        var replaySeconds: Double
        var downloadQualitySeconds: Double
        var ssimSeconds: Double
        var replayToDecode: Double
        var decodeCPUSeconds: Double
        var replayCPUSeconds: Double
        var replayToDecodeCPU: Double
        /// The SSIM timed: the file's luma against itself with every 7th byte's bit 4 flipped,
        /// for checking against another implementation.
        var ssim: Double
    }

    func run() -> Int32 {
        // As `ladder replay` and `ladder verify --replay` run.
        Allocator.keepFreedPictures()
        let clock = ContinuousClock()
        var cpu: Double = 0
        /// Wall seconds of `body`; its CPU seconds go to `cpu`.
        func seconds(_ body: () throws -> Void) rethrows -> Double {
            let start = clock.now
            let cpuStart = BuildStateTiming.processCPUSeconds()
            try body()
            let elapsed = clock.now - start
            cpu = BuildStateTiming.processCPUSeconds() - cpuStart
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        do {
            for file in files {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
                let luma = try DecodedPixels(decodingJPEG: bytes, lumaOnly: true)
                var damaged = luma.samples
                for index in stride(from: 0, to: damaged.count, by: 7) { damaged[index] ^= 0x10 }
                var decode: [Double] = []
                var replay: [Double] = []
                var decodeCPU: [Double] = []
                var replayCPU: [Double] = []
                var scoring: [Double] = []
                var ssim: [Double] = []
                var value = 0.0
                for _ in 0..<rounds {
                    decode.append(try seconds { _ = try DecodedPixels(decodingJPEG: bytes) })
                    decodeCPU.append(cpu)
                    replay.append(seconds { _ = ProgressiveReplay().replay(bytes, path: file) })
                    replayCPU.append(cpu)
                    scoring.append(try seconds { _ = try DownloadQuality(measuring: bytes) })
                    ssim.append(
                        seconds {
                            value = ImageQuality.ssim(
                                damaged, reference: luma.samples, width: luma.width, height: luma.height)
                        })
                }
                let line = TimingLine(
                    file: file, pixels: luma.width * luma.height, rounds: rounds, decodeSeconds: median(decode),
                    replaySeconds: median(replay), downloadQualitySeconds: median(scoring), ssimSeconds: median(ssim),
                    replayToDecode: median(zip(replay, decode).map { $0 / $1 }), decodeCPUSeconds: median(decodeCPU),
                    replayCPUSeconds: median(replayCPU),
                    replayToDecodeCPU: median(zip(replayCPU, decodeCPU).map { $0 / max($1, 1e-9) }), ssim: value)
                printJSONLine(line)
            }
            return 0
        } catch {
            printError("\(error)")
            return 1
        }
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
