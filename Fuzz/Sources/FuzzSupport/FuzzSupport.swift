internal import CFuzzer
import Foundation

/// Helpers shared by the fuzz targets.
public enum FuzzSupport {
    /// A fuzz target's entry point: writes the seeds, then runs libFuzzer with the process's
    /// arguments (`-max_total_time=600 corpus/ ...`) over `testOneInput`.
    public static func run(
        seeds: () -> [[UInt8]], _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Never {
        writeSeeds(seeds)
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
    }

    /// Writes `seeds` into the folder named by `LADDER_FUZZ_SEEDS` (as `seed-N`, again on every
    /// run, beside what the corpus has grown), so that each target starts from inputs it understands.
    static func writeSeeds(_ seeds: () -> [[UInt8]]) {
        guard let folder = ProcessInfo.processInfo.environment["LADDER_FUZZ_SEEDS"] else { return }
        let manager = FileManager.default
        try? manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, seed) in seeds().enumerated() {
            _ = manager.createFile(atPath: "\(folder)/seed-\(index)", contents: Data(seed))
        }
    }

    /// The bytes of one fuzz input.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Splits an input at its first line feed: (first line, the rest).
    public static func splitFirstLine(_ bytes: [UInt8]) -> (String, String) {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return (String(decoding: bytes, as: UTF8.self), "") }
        return (
            String(decoding: bytes[..<newline], as: UTF8.self),
            String(decoding: bytes[(newline + 1)...], as: UTF8.self)
        )
    }
}
