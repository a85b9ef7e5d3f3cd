import Foundation
import LadderCore
import LadderImaging

/// `ladder __floor FILE...` (hidden, for scripts/bench): the work no tool can avoid for each
/// file, timed with ladder's own decoder and encoder: one decode at the scale the largest default
/// variant needs, plus encoding each default variant from pixels already at its size. Prints one
/// JSON object per file, `{"file", "seconds"}`; the resizing between them is not timed.
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
                    try Image.decode(bytes, header: header, fitting: largest, background: .white, strictness: .warning)
                        .image
                }
                for (variant, size) in zip(variants, sizes) {
                    let pixels = size == decoded.size ? decoded : try decoded.resized(to: size).inMemory()
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
