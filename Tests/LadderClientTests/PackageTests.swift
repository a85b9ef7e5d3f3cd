import Foundation
import Testing

/// What an app developer reads and links: the examples and documented code parse, and the
/// client's product does not pull libvips in.
@Suite("Client package")
struct PackageTests {
    /// The package's root folder, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// An executable of the toolchain, found on PATH.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Every Swift file under examples/, relative to the root.
    static func exampleFiles() throws -> [String] {
        let examples = root.appendingPathComponent("examples")
        return try FileManager.default.subpathsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".swift") }
            .map { "examples/" + $0 }.sorted()
    }

    /// The ```swift blocks of README.md, docs/*.md and every .md file under examples/, each with
    /// where it is.
    static func documentedBlocks() throws -> [(place: String, code: String)] {
        let docs = root.appendingPathComponent("docs")
        let examples = root.appendingPathComponent("examples")
        let pages =
            ["README.md"]
            + (try FileManager.default.contentsOfDirectory(atPath: docs.path)).filter { $0.hasSuffix(".md") }.sorted()
            .map { "docs/" + $0 }
            + (try FileManager.default.subpathsOfDirectory(atPath: examples.path)).filter { $0.hasSuffix(".md") }
            .sorted().map { "examples/" + $0 }
        var blocks: [(String, String)] = []
        for page in pages {
            let lines = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
                .components(separatedBy: "\n")
            var start: Int?
            for (number, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if start == nil, trimmed == "```swift" {
                    start = number
                } else if let first = start, trimmed == "```" {
                    blocks.append(("\(page):\(first + 1)", lines[(first + 1)..<number].joined(separator: "\n")))
                    start = nil
                }
            }
        }
        return blocks
    }

    /// Runs `swiftc -parse` on files; the diagnostics when it fails.
    static func parse(_ files: [URL]) throws -> String? {
        let swiftc = try #require(tool("swiftc"), "swiftc is on PATH wherever swift test runs")
        let result = try ChildProcess.run(swiftc, ["-parse"] + files.map(\.path), input: [])
        return result.status == 0 ? nil : String(decoding: result.output, as: UTF8.self) + result.error
    }

    @Test("every Swift file in examples/ parses")
    func examplesParse() throws {
        let files = try Self.exampleFiles()
        #expect(files.contains("examples/app/LadderImageView.swift") && files.contains("examples/app/LadderCell.swift"))
        let failure = try Self.parse(files.map { Self.root.appendingPathComponent($0) })
        #expect(failure == nil, "\(failure ?? "")")
    }

    @Test("every swift block in README.md, docs/*.md and examples/**/*.md parses")
    func documentedCodeParses() throws {
        let blocks = try Self.documentedBlocks()
        for page in ["README.md", "docs/SWIFT_CLIENT.md", "examples/app/README.md"] {
            #expect(blocks.contains { $0.place.hasPrefix(page + ":") }, "\(page) shows the client's API")
        }
        let folder = TemporaryDirectory("ladder-blocks")
        var files: [URL] = []
        for (index, block) in blocks.enumerated() {
            // Each block on its own, named after where it is.
            let name = "block\(index)-" + block.place.map { $0.isLetter || $0.isNumber ? $0 : "_" } + ".swift"
            try folder.write(block.code, to: name)
            files.append(folder.url(name))
        }
        for (file, block) in zip(files, blocks) {
            let failure = try Self.parse([file])
            #expect(failure == nil, "\(block.place): \(failure ?? "")")
        }
    }

    @Test("the LadderClient product needs LadderJPEG and never libvips")
    func clientLinksNoLibvips() throws {
        let swift = try #require(Self.tool("swift"))
        // A scratch folder of its own: the test build holds the package's.
        let scratch = TemporaryDirectory("ladder-dump")
        let result = try ChildProcess.run(
            swift, ["package", "--package-path", Self.root.path, "--scratch-path", scratch.path, "dump-package"],
            input: [])
        try #require(result.status == 0, "\(result.error)")
        let package = try #require(try JSONSerialization.jsonObject(with: Data(result.output)) as? [String: Any])
        let targets = try #require(package["targets"] as? [[String: Any]])
        var dependencies: [String: [String]] = [:]
        for target in targets {
            guard let name = target["name"] as? String else { continue }
            dependencies[name] = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                // {"byName": [name, condition]} or {"target": [name, condition]}.
                (dependency["byName"] ?? dependency["target"]).flatMap { ($0 as? [Any])?.first as? String }
            }
        }
        var closure: Set<String> = []
        var next = ["LadderClient"]
        while let name = next.popLast() {
            guard closure.insert(name).inserted else { continue }
            next += dependencies[name] ?? []
        }
        #expect(closure.contains("LadderJPEG") && closure.contains("CJPEG"))
        for library in ["CVips", "CLadder", "LadderImaging", "CExif", "CLCMS"] {
            #expect(!closure.contains(library), "LadderClient depends on \(library): \(closure.sorted())")
        }
        let platforms = try #require(package["platforms"] as? [[String: Any]]).compactMap {
            $0["platformName"] as? String
        }
        #expect(Set(platforms).isSuperset(of: ["ios", "macos", "tvos", "visionos"]))
    }
}
