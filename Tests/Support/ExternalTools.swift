import Foundation
import LadderImaging
import Testing

/// Programs of other projects that tests use as oracles, found on PATH.
///
/// A test that needs one declares it with `.enabled(if: ExternalTools.runs(with: ...))`: without
/// the tool it is skipped with a message, except in CI (`CI=true`), where it runs and fails for
/// want of the tool (`require`), so that a broken install step shows as a failure.
enum ExternalTools {
    /// libjpeg-turbo's jpegtran, or nil when it is not installed.
    static let jpegtran: String? = find("jpegtran")
    /// libjpeg-turbo's djpeg, or nil when it is not installed.
    static let djpeg: String? = find("djpeg")
    /// libwebp's dwebp, libavif's avifdec and libjxl's djxl: the format siblings' own decoders.
    static let dwebp: String? = find("dwebp")
    static let avifdec: String? = find("avifdec")
    static let djxl: String? = find("djxl")

    /// True when the tests run in CI (`CI=true`, as CI services set it): a missing tool or
    /// corpus then fails the tests that need it instead of skipping them.
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether a test that needs `tool` runs: when it is installed, and always in CI.
    static func runs(with tool: String?) -> Bool { tool != nil || inCI }

    /// The message of a test skipped for want of `package`.
    static func absence(_ package: String) -> Comment {
        Comment(rawValue: "\(package) is not installed (scripts/bootstrap installs it); the test is skipped")
    }

    /// `tool`, or an error naming what to install: what a test that runs in CI without the
    /// tool fails with.
    static func require(_ tool: String?, _ package: String) throws -> String {
        guard let tool else {
            throw ToolError(message: "\(package) is not installed: scripts/bootstrap installs it, and CI needs it")
        }
        return tool
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
    /// oracle independent of ladder's segment walker; throws when djpeg is not installed.
    static func djpegScanCount(_ jpeg: [UInt8]) throws -> Int {
        try djpegStructure(jpeg).scans.count
    }

    /// A JPEG's structure as libjpeg-turbo's own decoder reads it (`djpeg -verbose` traces its
    /// markers): the oracle for frame, scan and marker checks, independent of ladder's segment
    /// walker.
    struct DjpegStructure: Equatable {
        /// The start-of-frame marker: 0xC0 baseline, 0xC1 extended, 0xC2 progressive, 0xC9 and up
        /// arithmetic-coded.
        var frameMarker: Int
        var width: Int
        var height: Int
        /// Each component's sampling factors, in frame order.
        var sampling: [(horizontal: Int, vertical: Int)]
        /// Each scan: the indices of its components in frame order (0 for the first), and its
        /// spectral band and successive-approximation bits.
        var scans: [JPEGScan]
        /// The application segments' markers, in order (0xE0 for APP0...).
        var applicationMarkers: [Int]

        var isProgressive: Bool { frameMarker == 0xC2 || frameMarker == 0xCA }

        /// The scan script in jpegtran's notation, as ladder's manifest records it.
        var script: String { scans.map { "\($0);" }.joined(separator: " ") }

        static func == (a: Self, b: Self) -> Bool {
            a.frameMarker == b.frameMarker && a.width == b.width && a.height == b.height
                && a.sampling.map { [$0.horizontal, $0.vertical] } == b.sampling.map { [$0.horizontal, $0.vertical] }
                && a.scans == b.scans && a.applicationMarkers == b.applicationMarkers
        }
    }

    /// `jpeg`'s structure as `djpeg -verbose` reports it. Throws when djpeg is not installed or
    /// cannot read the file.
    static func djpegStructure(_ jpeg: [UInt8]) throws -> DjpegStructure {
        let djpeg = try require(Self.djpeg, djpegPackage)
        // From a file: djpeg stops reading at the end of the image.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ladder-djpeg-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (_, trace) = try runCapturing(djpeg, ["-verbose", "-outfile", "/dev/null", file.path])
        return try parseTrace(trace)
    }

    /// Reads libjpeg's trace messages (jerror.h: JTRC_SOF, JTRC_SOF_COMPONENT, JTRC_SOS,
    /// JTRC_SOS_COMPONENT, JTRC_SOS_PARAMS, JTRC_APP0, JTRC_APP14, JTRC_MISC_MARKER).
    static func parseTrace(_ trace: String) throws -> DjpegStructure {
        var structure = DjpegStructure(
            frameMarker: 0, width: 0, height: 0, sampling: [], scans: [], applicationMarkers: [])
        var componentIDs: [Int] = []
        var scanComponents: [Int] = []
        /// The component ID of a "Component 1: ..." line.
        func componentID(_ line: Substring) -> Int? {
            Int(line.dropFirst("Component ".count).prefix { $0.isNumber })
        }
        func value(_ name: String, in line: Substring) -> Int? {
            guard let range = line.range(of: name + "=") else { return nil }
            let rest = line[range.upperBound...]
            let digits = rest.prefix { $0.isNumber || $0 == "x" || $0.isHexDigit }
            return digits.hasPrefix("0x") ? Int(digits.dropFirst(2), radix: 16) : Int(digits)
        }
        for line in trace.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            if text.hasPrefix("Start Of Frame 0x") {
                structure.frameMarker = Int(text.dropFirst("Start Of Frame 0x".count).prefix(2), radix: 16) ?? 0
                structure.width = value("width", in: text) ?? 0
                structure.height = value("height", in: text) ?? 0
            } else if text.hasPrefix("Component "), text.contains("hx") {
                // "Component 1: 2hx2v q=0"
                let fields = text.split(separator: " ")
                let parts = fields.count > 2 ? fields[2].split(separator: "x") : []
                guard let id = componentID(text), parts.count == 2, let horizontal = Int(parts[0].dropLast()),
                    let vertical = Int(parts[1].dropLast())
                else { throw ToolError(message: "djpeg trace: \(text)") }
                componentIDs.append(id)
                structure.sampling.append((horizontal, vertical))
            } else if text.hasPrefix("Start Of Scan") {
                scanComponents = []
            } else if text.hasPrefix("Component "), text.contains("dc=") {
                // "Component 1: dc=0 ac=0"
                let id = componentID(text) ?? -1
                guard let index = componentIDs.firstIndex(of: id) else {
                    throw ToolError(message: "djpeg trace: a scan names component \(id), not in the frame")
                }
                scanComponents.append(index)
            } else if text.hasPrefix("Ss=") {
                guard let ss = value("Ss", in: text), let se = value("Se", in: text), let ah = value("Ah", in: text),
                    let al = value("Al", in: text)
                else { throw ToolError(message: "djpeg trace: \(text)") }
                structure.scans.append(JPEGScan(components: scanComponents, ss: ss, se: se, ah: ah, al: al))
            } else if text.hasPrefix("JFIF APP0") || text.hasPrefix("JFIF extension")
                || text.hasPrefix("Unknown APP0")
            {
                structure.applicationMarkers.append(0xE0)
            } else if text.hasPrefix("Adobe APP14") || text.hasPrefix("Unknown APP14") {
                structure.applicationMarkers.append(0xEE)
            } else if text.hasPrefix("Miscellaneous marker 0x") {
                let marker = Int(text.dropFirst("Miscellaneous marker 0x".count).prefix(2), radix: 16) ?? 0
                if (0xE0...0xEF).contains(marker) { structure.applicationMarkers.append(marker) }
            }
        }
        guard structure.frameMarker != 0 else { throw ToolError(message: "djpeg found no frame header") }
        return structure
    }

    /// The luma plane djpeg (libjpeg-turbo's own decoder, given the whole file in one go, integer
    /// DCT) makes of `jpeg`: its Y plane for a YCbCr file. Throws when djpeg is not installed.
    static func djpegLuma(_ jpeg: [UInt8]) throws -> (width: Int, height: Int, samples: [UInt8]) {
        let djpeg = try require(Self.djpeg, djpegPackage)
        // From a file: djpeg stops reading at the end of the image, and a pipe with bytes after
        // it left unread would break.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ladder-djpeg-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return parsePGM(try run(djpeg, ["-dct", "int", "-grayscale", "-pnm", file.path]))
    }

    /// The RGB picture djpeg (integer DCT, libjpeg's own color conversion) makes of `jpeg` at
    /// `scale` ("3/8"), as interleaved samples. Throws when djpeg is not installed.
    static func djpegRGB(_ jpeg: [UInt8], scale: String = "1/1") throws -> (width: Int, height: Int, samples: [UInt8]) {
        let djpeg = try require(Self.djpeg, djpegPackage)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ladder-djpeg-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return parsePGM(try run(djpeg, ["-dct", "int", "-rgb", "-scale", scale, "-pnm", file.path]))
    }

    /// libvips' command-line tool (libvips-tools), or nil when it is not installed.
    static let vips: String? = find("vips")

    static let djpegPackage = "djpeg (libjpeg-turbo-progs)"
    static let jpegtranPackage = "jpegtran (libjpeg-turbo-progs)"
    static let vipsPackage = "vips (libvips-tools)"

    /// `plane` scaled to `targetWidth` x `targetHeight` by libvips' own bilinear interpolator
    /// (`vips affine --interpolate bilinear`, edges extended by copying), with pixel centres at
    /// half-integers in both pictures, as a GPU samples a stretched texture: output pixel X
    /// samples the source at (X + 0.5) · w / W − 0.5. Throws when `vips` is not installed.
    static func vipsBilinear(
        _ plane: [UInt8], width: Int, height: Int, toWidth targetWidth: Int, height targetHeight: Int
    ) throws -> [UInt8] {
        let vips = try require(Self.vips, vipsPackage)
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
