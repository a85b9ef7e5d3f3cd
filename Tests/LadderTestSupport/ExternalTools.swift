public import Foundation

/// Programs of other projects that tests use as oracles, found on PATH.
public enum ExternalTools {
    /// libjpeg-turbo's jpegtran, or nil when it is not installed.
    public static let jpegtran: String? = find("jpegtran")
    /// libjpeg-turbo's djpeg, or nil when it is not installed.
    public static let djpeg: String? = find("djpeg")

    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`, feeding `input` on standard input, and returns its
    /// standard output and standard error; throws when it exits with a failure.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], input: [UInt8] = []
    ) throws -> [UInt8] {
        try runCapturing(executable, arguments, input: input).output
    }

    public static func runCapturing(
        _ executable: String, _ arguments: [String], input: [UInt8] = []
    ) throws -> (output: [UInt8], error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let result = try ChildProcess.run(process, input: input)
        guard result.status == 0 else {
            throw ToolError(message: "\(executable) exited \(result.status): \(result.error)")
        }
        return (result.output, result.error)
    }

    public struct ToolError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Scans in a JPEG as libjpeg-turbo's djpeg counts them ("Start Of Scan" trace lines), an
    /// oracle independent of ladder's segment walker; nil when djpeg is not installed.
    public static func djpegScanCount(_ jpeg: [UInt8]) throws -> Int? {
        guard let djpeg else { return nil }
        let (_, trace) = try runCapturing(djpeg, ["-verbose", "-outfile", "/dev/null"], input: jpeg)
        return trace.components(separatedBy: "Start Of Scan").count - 1
    }
}
