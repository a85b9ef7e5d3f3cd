import Foundation
import LadderCore
import LadderImaging
import LadderManifest

/// `ladder-bench floor FILE...` (for scripts/bench): the work no tool can avoid for each
/// file at ladder's quality, timed with ladder's own decoder, resampler and encoder: one decode
/// to the exact size of the largest default variant (shrink-on-load and Lanczos3, as a render
/// does), each smaller variant resized with Lanczos3 from that picture, and each variant
/// encoded, the progressive one with its fixed script. Prints one JSON object
/// per file, `{"file", "seconds"}`. Not timed: reading the file, and choosing a scan script.
enum Floor {
    static func run(_ files: [String]) -> Int32 {
        do {
            try Imaging.start(threadsPerImage: 1)
            let variants = Defaults.variants
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
                printJSONLine(FloorLine(file: file, seconds: seconds))
            }
            return 0
        } catch {
            printError("\(error)")
            return 1
        }
    }

    struct FloorLine: Encodable {
        var file: String
        var seconds: Double
    }
}
