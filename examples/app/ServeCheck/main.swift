// ladder-serve-check: loads images' ladders from a server the way an app does, with the client
// library, prints when each picture was drawn, and with --frames writes every picture it drew as
// a PNG file, to compare what the client shows with a reference decoder. Runs on Linux, to see
// the client's flow without a phone.
import Foundation
import LadderClient
import LadderManifest

#if canImport(ImageIO)
    import ImageIO
#else
    import LadderImaging
#endif

@main
struct ServeCheck {
    static let usage = """
        usage: ladder-serve-check BASE-URL [SHA1...] [--size N] [--fit fit|fill] [--limit N]
                                  [--manifest NAME.json] [--frames DIR]

        Loads the ladders of the images (by the SHA1 of their source file) from the folder that
        holds the manifest at BASE-URL, as an app showing them in a view of N x N pixels does
        (4000 by default, every rung), and prints each picture the client draws: the
        placeholder, each scan of a progressive rung, each whole rung. Without SHA1s, loads the
        manifest's first five images.

          --size N             the view's width and height in pixels
          --fit fit|fill       the view shows all of the picture (fit, the default) or fills
                               itself with it (fill)
          --limit N            the most downloads at once (6)
          --manifest NAME      the manifest's name (manifest.json); its index is NAME's
          --frames DIR         writes every picture drawn: DIR/<sha1>-placeholder.png,
                               DIR/<sha1>-<rung>.png for each whole rung, and
                               DIR/<sha1>-<rung>-scan<k>.png (k from 1) for each scan of a
                               progressive rung (the last is the whole rung's picture)

        Exits 0 when every image reached the rung its view needs, 1 when one did not, 64 on a
        usage error.
        """

    struct Options {
        var base: URL
        var sha1s: [String] = []
        var size = 4000
        var fit = Ladder.Fit.aspectFit
        var limit = 6
        var manifestName = ManifestIndex.defaultManifestName
        var frames: URL?
    }

    static func main() async {
        let options: Options
        do {
            guard let parsed = try parse(Array(CommandLine.arguments.dropFirst())) else {
                print(usage)
                exit(0)
            }
            options = parsed
        } catch {
            FileHandle.standardError.write(Data("ladder-serve-check: \(error)\n\n\(usage)\n".utf8))
            exit(64)
        }
        var sha1s = options.sha1s
        if sha1s.isEmpty {
            let url = options.base.appendingPathComponent(options.manifestName)
            do {
                let (data, _) = try await URLSession.shared.data(from: url)
                sha1s = Array(try Manifest(jsonData: data).images.keys.sorted().prefix(5))
            } catch {
                FileHandle.standardError.write(Data("ladder-serve-check: cannot read \(url): \(error)\n".utf8))
                exit(1)
            }
        }
        if let frames = options.frames {
            try? FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        }
        #if !canImport(ImageIO)
            if options.frames != nil {
                do { try Imaging.start() } catch {
                    FileHandle.standardError.write(Data("ladder-serve-check: \(error)\n".utf8))
                    exit(1)
                }
            }
        #endif
        var configuration = LadderClient.Configuration()
        configuration.manifestName = options.manifestName
        configuration.maxConcurrentDownloads = options.limit
        configuration.memoryCache = nil
        configuration.drawsEveryScan = options.frames != nil
        let client = LadderClient(baseURL: options.base, configuration: configuration)
        let start = Date()
        var allFinal = true
        await withTaskGroup(of: (lines: [String], final: Bool).self) { group in
            for sha1 in sha1s {
                group.addTask {
                    await load(sha1, with: client, options: options, since: start)
                }
            }
            for await result in group {
                print(result.lines.joined(separator: "\n"))
                allFinal = allFinal && result.final
            }
        }
        exit(allFinal ? 0 : 1)
    }

    /// Loads one image, returning what it printed and whether it reached the rung its view needs.
    static func load(
        _ sha1: String, with client: LadderClient, options: Options, since start: Date
    ) async -> (lines: [String], final: Bool) {
        var lines: [String] = []
        var final = false
        func log(_ text: String) {
            let seconds = String(format: "%8.3f", Date().timeIntervalSince(start))
            lines.append("\(seconds) s  \(sha1.prefix(12))  \(text)")
        }
        do {
            let events = client.load(.sha1(sha1), width: options.size, height: options.size, fit: options.fit)
            for try await event in events {
                switch event {
                case .frame(let frame):
                    let size = "\(frame.picture.width)x\(frame.picture.height)"
                    let names: [String]
                    switch frame.stage {
                    case .placeholder(let hash, let color):
                        log("placeholder \(size) from \(hash.bytes.count) bytes, \(color?.description ?? "no colour")")
                        names = ["placeholder"]
                    case .scans(let scans):
                        let rung = frame.rung?.name ?? "?"
                        log("\(rung) scan \(scans): \(size), before the file's check")
                        names = ["\(rung)-scan\(scans)"]
                    case .whole:
                        let rung = frame.rung?.name ?? "?"
                        log(
                            "\(rung) (\(frame.format?.rawValue ?? "?")): \(size), sha256 ok\(frame.isFinal ? ", final" : "")"
                        )
                        // The last scan of a progressive rung is drawn with the whole file.
                        let scans = frame.rung.map { $0.progressive ? ["\(rung)-scan\($0.scans)"] : [] } ?? []
                        names = [rung] + scans
                    }
                    final = final || frame.isFinal
                    if let folder = options.frames {
                        for name in names {
                            do {
                                try write(frame.picture, to: folder.appendingPathComponent("\(sha1)-\(name).png"))
                            } catch {
                                log("cannot write \(name).png: \(error)")
                            }
                        }
                    }
                case .failed(let rung, let error):
                    log("\(rung.name) failed: \(error)")
                }
            }
        } catch {
            log("cannot load: \(error)")
        }
        return (lines, final)
    }

    /// Writes `picture` as a PNG file.
    static func write(_ picture: Picture, to url: URL) throws {
        #if canImport(ImageIO)
            guard let destination = CGImageDestinationCreateWithURL(url as CFURL, "public.png" as CFString, 1, nil)
            else { throw CocoaError(.fileWriteUnknown) }
            CGImageDestinationAddImage(destination, picture.cgImage, nil)
            guard CGImageDestinationFinalize(destination) else { throw CocoaError(.fileWriteUnknown) }
        #else
            let image = try Image(
                pixels: picture.samples, width: picture.width, height: picture.height, bands: picture.components,
                space: picture.components < 3 ? .grayscale : .sRGB)
            try Data(image.encoded(as: ".png")).write(to: url)
        #endif
    }

    /// The options, or nil for --help; throws a message for a usage error.
    static func parse(_ arguments: [String]) throws -> Options? {
        var positional: [String] = []
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" { return nil }
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2).prefix { $0 != "=" })
                guard ["size", "fit", "limit", "manifest", "frames"].contains(name) else {
                    throw UsageError("unknown option \(argument)")
                }
                if let equals = argument.firstIndex(of: "=") {
                    values[name] = String(argument[argument.index(after: equals)...])
                } else {
                    guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                    index += 1
                    values[name] = arguments[index]
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
        guard let first = positional.first, var base = URL(string: first), base.scheme != nil else {
            throw UsageError("the first argument must be the URL of the folder that holds the manifest")
        }
        if !base.absoluteString.hasSuffix("/") { base = base.appendingPathComponent("") }
        var options = Options(base: base, sha1s: Array(positional.dropFirst()))
        for sha1 in options.sha1s where !Manifest.isSHA1(sha1.lowercased()) {
            throw UsageError("\(sha1) is not a SHA1 (40 hex digits)")
        }
        func number(_ name: String) throws -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text), value > 0 else { throw UsageError("--\(name) needs a positive number") }
            return value
        }
        options.size = try number("size") ?? options.size
        options.limit = try number("limit") ?? options.limit
        switch values["fit"] {
        case nil, "fit": options.fit = .aspectFit
        case "fill": options.fit = .aspectFill
        case let other?: throw UsageError("--fit is fit or fill, not \(other)")
        }
        options.manifestName = values["manifest"] ?? options.manifestName
        options.frames = values["frames"].map { URL(fileURLWithPath: $0, isDirectory: true) }
        return options
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
