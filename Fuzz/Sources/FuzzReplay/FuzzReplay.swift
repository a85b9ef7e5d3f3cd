import FuzzSupport
import LadderCore
import LadderImaging

/// The progressive replay: libjpeg-turbo's buffered-image mode behind the suspending source of
/// jpeg_replay.c, as `ladder replay` and `ladder verify --replay` drive it, and the decoder alone
/// fed in steps of a size the input chooses (its first byte).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzSupport.bytes(data, size)
    guard let step = input.first else { return 0 }
    let bytes = Array(input.dropFirst())
    // A small pixel limit keeps each run fast; the limit itself is tested elsewhere.
    let options = ProgressiveReplay.Options(chunkBytes: 64, maximumScans: 100, maximumPixels: 256 * 256)
    _ = ProgressiveReplay(options: options).replay(bytes, path: "fuzz.jpg")

    // The decoder alone, on files the walker lets through to it.
    guard let structure = try? JPEGStructure(parsing: bytes, scanLimit: 100),
        structure.width * structure.height <= 256 * 256,
        let decoder = try? JPEGReplayDecoder(bytes, maximumScans: 100)
    else { return 0 }
    var available = 0
    var rendered = 0
    while available < bytes.count {
        available = min(bytes.count, available + Int(step) + 1)
        guard let state = try? decoder.advance(to: available) else { return 0 }
        let renderable = state.inputComplete ? state.scansCompleted : min(state.scansCompleted, state.inputScan - 1)
        while rendered < renderable {
            rendered += 1
            guard (try? decoder.render(scan: rendered)) != nil else { return 0 }
        }
    }
    _ = decoder.lastWarning
    return 0
}

@main
enum FuzzReplayMain {
    static func main() {
        try? Imaging.start(threadsPerImage: 1)
        // Each seed starts with the step byte.
        FuzzSupport.run(
            seeds: { FuzzSupport.jpegSeeds().flatMap { [[UInt8(7)] + $0, [UInt8(200)] + $0] } }, fuzzOneInput)
    }
}
