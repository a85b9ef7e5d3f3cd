import CYajl
import Foundation
import LadderCore
import LadderImaging
import LadderJPEG
import Synchronization

/// `ladder-bench verify-floor --sha1 LIST --sha256 LIST --decode LIST --parse LIST [--jobs N]`
/// (for scripts/verify-floor): the work `ladder verify --no-cache` cannot avoid, through the
/// libraries it is built on and nothing else. Each LIST is a file of paths, one a line:
/// - `--sha1`: read whole and hashed with GLib's SHA-1 (the sources);
/// - `--sha256`: read whole and hashed with GLib's SHA-256 (the variant files);
/// - `--decode`: read whole and decoded to RGB by libjpeg (the files placeholders are made of);
/// - `--parse`: read whole and parsed by yajl with no callbacks (the manifest and its index).
/// Every file is one item, taken in turn by `jobs` threads, and opened in its folder. Not done:
/// walking any folder (the lists are given), building any model, checking anything. Prints one
/// JSON object: the wall and CPU seconds of that work alone (not of reading the lists, nor of the
/// process's start), and the files and bytes of each kind.
enum VerifyFloor {
    enum Kind: String, CaseIterable, Sendable {
        case sha1, sha256, decode, parse
    }

    struct Item: Sendable {
        var kind: Kind
        var folder: Int
        var name: String
    }

    struct Line: Encodable {
        var jobs: Int
        var seconds: Double
        var cpuSeconds: Double
        var files: [String: Int]
        var bytes: [String: Int]
    }

    static func run(_ arguments: [String]) -> Int32 {
        var arguments = arguments
        let jobs = option("--jobs", in: &arguments).flatMap(Int.init) ?? ProcessInfo.processInfo.activeProcessorCount
        // Each file as its folder's number and its name, worked out before the clock starts.
        var folders: [String] = []
        var folderNumbers: [Substring: Int] = [:]
        var items: [Item] = []
        for kind in Kind.allCases {
            guard let list = option("--\(kind.rawValue)", in: &arguments) else { continue }
            guard let text = try? String(contentsOfFile: list, encoding: .utf8) else {
                printError("cannot read the list \(list)")
                return 66
            }
            for path in text.split(separator: "\n") {
                let slash = path.lastIndex(of: "/")
                let folder = slash.map { path[..<$0] } ?? "."
                let number =
                    folderNumbers[folder]
                    ?? {
                        folders.append(String(folder))
                        folderNumbers[folder] = folders.count - 1
                        return folders.count - 1
                    }()
                let name = slash.map { path[path.index(after: $0)...] } ?? path
                items.append(Item(kind: kind, folder: number, name: String(name)))
            }
        }
        guard arguments.isEmpty, !items.isEmpty, jobs > 0 else {
            printError("usage: verify-floor --sha1 LIST --sha256 LIST --decode LIST --parse LIST [--jobs N]")
            return 64
        }
        let work = items
        let folderPaths = folders
        let next = Atomic(0)
        let totals = Mutex((files: [Kind: Int](), bytes: [Kind: Int](), failed: [String]()))
        let started = ContinuousClock.now
        let cpuStarted = BuildStateTiming.processCPUSeconds()
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            var files: [Kind: Int] = [:]
            var bytes: [Kind: Int] = [:]
            var failed: [String] = []
            // Each file is read in its folder as verify reads it (`Directory.readFile`), one name
            // looked up a file. The lists are sorted, so a thread keeps the folder of its last
            // file open until it takes a file elsewhere.
            var folder: (number: Int, directory: Directory?) = (-1, nil)
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < work.count else { break }
                let item = work[index]
                if folder.number != item.folder {
                    folder = (item.folder, try? Directory.open(folderPaths[item.folder]))
                }
                guard let content = try? folder.directory?.readFile(item.name), perform(item.kind, content) else {
                    failed.append(folderPaths[item.folder] + "/" + item.name)
                    continue
                }
                files[item.kind, default: 0] += 1
                bytes[item.kind, default: 0] += content.count
            }
            totals.withLock {
                $0.files.merge(files, uniquingKeysWith: +)
                $0.bytes.merge(bytes, uniquingKeysWith: +)
                $0.failed += failed
            }
        }
        let elapsed = ContinuousClock.now - started
        let cpu = BuildStateTiming.processCPUSeconds() - cpuStarted
        let found = totals.withLock { $0 }
        if let path = found.failed.first {
            printError("\(found.failed.count) files could not be read or did not hold, the first \(path)")
            return 1
        }
        printJSONLine(
            Line(
                jobs: jobs,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                cpuSeconds: cpu,
                files: Dictionary(uniqueKeysWithValues: found.files.map { ($0.key.rawValue, $0.value) }),
                bytes: Dictionary(uniqueKeysWithValues: found.bytes.map { ($0.key.rawValue, $0.value) })))
        return 0
    }

    /// Does one item's work; false when the file does not hold (it does not decode, or is not JSON).
    static func perform(_ kind: Kind, _ content: [UInt8]) -> Bool {
        switch kind {
        case .sha1: return Checksum.digest(.sha1, of: content).count == 20
        case .sha256: return Checksum.digest(.sha256, of: content).count == 32
        case .decode: return (try? DecodedPixels(decodingJPEG: content, rgb: true)) != nil
        case .parse:
            guard let handle = yajl_alloc(nil, nil, nil) else { return false }
            defer { yajl_free(handle) }
            let parsed = content.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, $0.count) }
            return parsed == yajl_status_ok && yajl_complete_parse(handle) == yajl_status_ok
        }
    }
}
