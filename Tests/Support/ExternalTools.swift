import Foundation
import Testing

/// Programs of other projects that tests use as oracles, found on PATH.
enum ExternalTools {
    /// libjpeg-turbo's jpegtran, or nil when it is not installed.
    static let jpegtran: String? = find("jpegtran")
    /// libjpeg-turbo's djpeg, or nil when it is not installed.
    static let djpeg: String? = find("djpeg")

    /// libwebp's dwebp, libavif's avifdec and libjxl's djxl: the format siblings' own decoders.
    static let dwebp: String? = find("dwebp")
    static let avifdec: String? = find("avifdec")
    static let djxl: String? = find("djxl")

    /// True on CI (`CI=true`), where a test whose oracle tool is missing fails instead of being
    /// skipped: scripts/bootstrap installs every tool, so a missing one is a missing install step.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// `tool`, or nil with the test to be skipped; on CI a missing tool is a failure.
    static func required(_ tool: String?, _ package: String) throws -> String {
        try #require(tool, "\(package) is not installed (scripts/bootstrap installs it)")
    }

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
    static func run(
        _ executable: String, _ arguments: [String], input: [UInt8] = []
    ) throws -> [UInt8] {
        try runCapturing(executable, arguments, input: input).output
    }

    static func runCapturing(
        _ executable: String, _ arguments: [String], input: [UInt8] = []
    ) throws -> (output: [UInt8], error: String) {
        let result = try ChildProcess.run(executable, arguments, input: input)
        guard result.status == 0 else {
            throw ToolError(message: "\(executable) exited \(result.status): \(result.error)")
        }
        return (result.output, result.error)
    }

    struct ToolError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Scans in a JPEG as libjpeg-turbo's djpeg counts them ("Start Of Scan" trace lines), an
    /// oracle independent of ladder's segment walker; nil when djpeg is not installed.
    static func djpegScanCount(_ jpeg: [UInt8]) throws -> Int? {
        guard let djpeg else { return nil }
        let (_, trace) = try runCapturing(djpeg, ["-verbose", "-outfile", "/dev/null"], input: jpeg)
        return trace.components(separatedBy: "Start Of Scan").count - 1
    }

    /// The luma plane djpeg (libjpeg-turbo's own decoder, given the whole file in one go, integer
    /// DCT) makes of `jpeg`: its Y plane for a YCbCr file. nil when djpeg is not installed.
    static func djpegLuma(_ jpeg: [UInt8]) throws -> (width: Int, height: Int, samples: [UInt8])? {
        guard let djpeg else { return nil }
        // From a file: djpeg stops reading at the end of the image, and a pipe with bytes after
        // it left unread would break.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ladder-djpeg-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return parsePGM(try run(djpeg, ["-dct", "int", "-grayscale", "-pnm", file.path]))
    }

    /// The RGB picture djpeg (integer DCT, libjpeg's own color conversion) makes of `jpeg` at
    /// `scale` ("3/8"), as interleaved samples; nil when djpeg is not installed.
    static func djpegRGB(_ jpeg: [UInt8], scale: String) throws -> (width: Int, height: Int, samples: [UInt8])? {
        guard let djpeg else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ladder-djpeg-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return parsePGM(try run(djpeg, ["-dct", "int", "-rgb", "-scale", scale, "-pnm", file.path]))
    }

    /// libvips' command-line tool (libvips-tools), or nil when it is not installed.
    static let vips: String? = find("vips")

    /// `plane` scaled to `targetWidth` x `targetHeight` by libvips' own bilinear interpolator
    /// (`vips affine --interpolate bilinear`, edges extended by copying), with pixel centres at
    /// half-integers in both pictures, as a GPU samples a stretched texture: output pixel X
    /// samples the source at (X + 0.5) · w / W − 0.5. nil when `vips` is not installed.
    static func vipsBilinear(
        _ plane: [UInt8], width: Int, height: Int, toWidth targetWidth: Int, height targetHeight: Int
    ) throws -> [UInt8]? {
        guard let vips else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ladder-vips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.pgm")
        let output = folder.appendingPathComponent("out.pgm")
        try Data(Array("P5\n\(width) \(height)\n255\n".utf8) + plane).write(to: input)
        // vips_affine maps input (x, y) to output a·(x + idx) + odx: with idx = 0.5 and odx = -0.5,
        // output pixel centres X + 0.5 land on a·(x + 0.5).
        let (a, d) = (Double(targetWidth) / Double(width), Double(targetHeight) / Double(height))
        try run(
            vips,
            [
                "affine", input.path, output.path, "\(a) 0 0 \(d)", "--interpolate", "bilinear", "--idx", "0.5",
                "--idy", "0.5", "--odx", "-0.5", "--ody", "-0.5", "--extend", "copy", "--oarea",
                "0 0 \(targetWidth) \(targetHeight)",
            ])
        let scaled = parsePGM([UInt8](try Data(contentsOf: output)))
        guard scaled.width == targetWidth, scaled.height == targetHeight else {
            throw ToolError(message: "vips affine made \(scaled.width)x\(scaled.height)")
        }
        return scaled.samples
    }

    /// A binary PGM's (or PPM's) size and samples.
    static func parsePGM(_ pgm: [UInt8]) -> (width: Int, height: Int, samples: [UInt8]) {
        // "P5", width, height and maximum, each after whitespace or a comment line ("#..."), one
        // whitespace byte, the samples.
        var fields: [Int] = []
        var index = 2
        while fields.count < 3 {
            while pgm[index] == 0x20 || pgm[index] == 0x0A || pgm[index] == 0x23 {
                if pgm[index] == 0x23 {
                    while pgm[index] != 0x0A { index += 1 }
                }
                index += 1
            }
            var value = 0
            while (0x30...0x39).contains(pgm[index]) {
                value = value * 10 + Int(pgm[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        return (fields[0], fields[1], Array(pgm[(index + 1)...]))
    }
}
