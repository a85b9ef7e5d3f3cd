// ladder-serve-check: loads images' ladders from a server the way an app does, and prints when
// each rung arrived. Runs on Linux, to see the client's flow without a phone.
//
//     python3 -m http.server -d build/variants 8000 &
//     swift run -c release ladder-serve-check http://127.0.0.1:8000/ [SHA1...] [--size N] [--limit N]
//         [--manifest NAME.json]
//
// Without SHA1s it reads the manifest (manifest.json unless --manifest names another) from the
// server and loads its first five images, through the index of that manifest.
import Foundation
import LadderClient
import LadderManifest

@main
struct ServeCheck {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func option(_ name: String, default value: Int) -> Int {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
                let number = Int(arguments[index + 1])
            else { return value }
            arguments.removeSubrange(index...index + 1)
            return number
        }
        let size = option("--size", default: 4000)
        let limit = option("--limit", default: 6)
        var manifestName = ManifestIndex.defaultManifestName
        if let index = arguments.firstIndex(of: "--manifest"), index + 1 < arguments.count {
            manifestName = arguments[index + 1]
            arguments.removeSubrange(index...index + 1)
        }
        guard let first = arguments.first, var base = URL(string: first), base.scheme != nil else {
            FileHandle.standardError.write(
                Data(
                    "usage: ladder-serve-check BASE-URL [SHA1...] [--size N] [--limit N] [--manifest NAME.json]\n".utf8)
            )
            exit(64)
        }
        if !base.absoluteString.hasSuffix("/") { base = base.appendingPathComponent("") }
        var sha1s = Array(arguments.dropFirst())
        if sha1s.isEmpty {
            do {
                let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent(manifestName))
                sha1s = Array(try Manifest(jsonData: data).images.keys.sorted().prefix(5))
            } catch {
                FileHandle.standardError.write(
                    Data("ladder-serve-check: cannot read \(base)\(manifestName): \(error)\n".utf8))
                exit(1)
            }
        }
        let client = LadderClient(baseURL: base, manifestName: manifestName, maxConcurrentDownloads: limit)
        let start = Date()
        var failed = false
        await withTaskGroup(of: [String].self) { group in
            for sha1 in sha1s {
                group.addTask {
                    var lines: [String] = []
                    func log(_ text: String) {
                        lines.append(
                            String(
                                format: "%8.3f s  %@  %@", Date().timeIntervalSince(start), String(sha1.prefix(12)),
                                text))
                    }
                    do {
                        for try await event in client.load(.sha1(sha1), width: size, height: size) {
                            switch event {
                            case .placeholder(let hash, let color):
                                log("placeholder \(hash.bytes.count) bytes, \(color?.description ?? "no colour")")
                            case .scans(let rung, let data, let scans):
                                log("\(rung.name) scan \(scans): \(data.count) of \(rung.bytes) bytes")
                            case .rung(let rung, let data, let cached):
                                log(
                                    "\(rung.name) \(rung.width)x\(rung.height): \(data.count) bytes\(cached ? " (cache)" : ""), sha256 ok"
                                )
                            case .failed(let rung, let error):
                                log("\(rung.name) failed: \(error)")
                            }
                        }
                    } catch {
                        log("cannot load: \(error)")
                    }
                    return lines
                }
            }
            for await lines in group {
                if lines.contains(where: { $0.contains("failed") || $0.contains("cannot load") }) { failed = true }
                print(lines.joined(separator: "\n"))
            }
        }
        exit(failed ? 1 : 0)
    }
}
