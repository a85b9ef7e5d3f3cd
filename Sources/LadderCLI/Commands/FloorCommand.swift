import Foundation
import LadderCore
import LadderImaging

/// `ladder __floor FILE...` (hidden, for scripts/bench): the work no tool can avoid for each
/// file at ladder's quality, timed with ladder's own decoder, resampler and encoder: one decode
/// to the exact size of the largest default variant (shrink-on-load and Lanczos3, as a render
/// does), each smaller variant resized with Lanczos3 from that picture, and each variant
/// encoded, the progressive one with its fixed script. Prints one JSON object
/// per file, `{"file", "seconds"}`. Not timed: reading the file, and choosing a scan script.
struct FloorCommand: LadderCommand {
    static let name = "__floor"
    static let summary = "Time the unavoidable work per file (for scripts/bench)."
    static let synopsis = "FILE..."
    static let discussion = "Used by scripts/bench to measure the floor it compares ladder with."
    static let options: [OptionSpec] = []
    static let exitCodes: [(ExitCode, String)] = [(.success, "timed every file"), (.failure, "a file failed")]

    var files: [String]

    init(parsing options: ParsedOptions) throws(UsageError) {
        files = options.positional
    }

    func run(_ context: CommandContext) -> ExitCode {
        do {
            try Imaging.start(threadsPerImage: 1)
            let variants = PipelineConfiguration.defaultVariants
            for file in files {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
                let header = try ImageHeader(reading: bytes)
                let sizes = variants.map { $0.size(for: header.size) }
                let largest = sizes.max { $0.pixelCount < $1.pixelCount } ?? header.size
                let clock = ContinuousClock()
                var seconds = 0.0
                func timed<T>(_ body: () throws -> T) rethrows -> T {
                    let start = clock.now
                    defer {
                        let elapsed = clock.now - start
                        seconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    }
                    return try body()
                }
                let decoded = try timed {
                    try Image.decode(bytes, header: header, to: largest, background: .white, strictness: .warning)
                        .image
                }
                for (variant, size) in zip(variants, sizes) {
                    // Each from the decoded picture, as the renderer makes them.
                    let pixels = try timed {
                        try decoded.size == size
                            ? decoded : decoded.resized(to: size, with: VariantRenderer.resampling).inMemory()
                    }
                    _ = try timed { try pixels.jpegEncoded(variant.encoding(components: pixels.bands, exif: nil)) }
                }
                context.console.write(encodeJSONLine(FloorLine(file: file, seconds: seconds)))
            }
            return .success
        } catch {
            context.console.error("\(error)")
            return .failure
        }
    }

    struct FloorLine: Encodable {
        var file: String
        var seconds: Double
    }
}
