import Foundation
import Testing

/// docs/ARCHITECTURE.md draws the dependencies between the package's modules and between
/// LadderCore's folders. These tests read the drawing and hold the code to it, so that an import
/// or a type reference that breaks it, a cycle, or a folder the drawing leaves out fails here
/// instead of being found by a reader.
@Suite("Architecture")
struct ArchitectureTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The fenced block of ARCHITECTURE.md whose info string is `tag`: each line `Name: A, B`,
    /// as Name → {A, B}.
    static func graph(_ tag: String) throws -> [String: Set<String>] {
        let text = try String(
            contentsOf: repository.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```" + tag), "ARCHITECTURE.md has a ```\(tag) block")
        var graph: [String: Set<String>] = [:]
        for line in lines[(start + 1)...] {
            if line.hasPrefix("```") { break }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first, !name.isEmpty else { continue }
            let targets = parts.count > 1 ? parts[1].split(separator: ",") : []
            graph[name] = Set(targets.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        return graph
    }

    /// Every name reachable from `name` in `graph`.
    static func reachable(from name: String, in graph: [String: Set<String>]) -> Set<String> {
        var seen: Set<String> = []
        var stack = Array(graph[name] ?? [])
        while let next = stack.popLast() {
            if seen.insert(next).inserted { stack += graph[next] ?? [] }
        }
        return seen
    }

    /// The Swift files under `folder`, without following links (the linked support folders of the
    /// test targets and of Fuzz/ and Benchmarks/ belong elsewhere).
    static func swiftFiles(under folder: URL) -> [URL] {
        guard
            let walker = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isSymbolicLinkKey])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker {
            if (try? url.resourceValues(forKeys: [.isSymbolicLinkKey]).isSymbolicLink) == true {
                walker.skipDescendants()
                continue
            }
            if url.pathExtension == "swift" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The source without comments and string literals, which may name types freely.
    static func code(of file: URL) throws -> String {
        var text = try String(contentsOf: file, encoding: .utf8)
        for pattern in [#"/\*[\s\S]*?\*/"#, #"//[^\n]*"#, #""""[\s\S]*?""""#, #""(?:[^"\\\n]|\\.)*""#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        return text
    }

    static func matches(_ pattern: String, in text: String, group: Int = 1) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            return []
        }
        let whole = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: whole).compactMap { match in
            Range(match.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    @Test("the modules import only what ARCHITECTURE.md lists for each, and every module is listed")
    func moduleImports() throws {
        let modules = try Self.graph("modules")
        #expect(modules.count >= 10, "the modules block is read")
        let sources = Self.repository.appendingPathComponent("Sources")
        let folders = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix(".") }
        #expect(
            Set(folders).isSubset(of: Set(modules.keys)),
            "modules not in ARCHITECTURE.md: \(Set(folders).subtracting(modules.keys))")
        var checked = 0
        for (module, allowed) in modules {
            let folder =
                module == "ladder-serve-check"
                ? Self.repository.appendingPathComponent("examples/app/ServeCheck")
                : sources.appendingPathComponent(module)
            for file in Self.swiftFiles(under: folder) {
                let imports = Self.matches(
                    #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)"#,
                    in: try Self.code(of: file))
                for name in imports where modules[name] != nil {
                    checked += 1
                    #expect(
                        allowed.contains(name),
                        "\(file.lastPathComponent) in \(module) imports \(name), which ARCHITECTURE.md does not let \(module) use"
                    )
                }
            }
        }
        #expect(checked > 10, "imports of the package's own modules were found")
    }

    @Test("LadderCore's folders use each other's types one way, as ARCHITECTURE.md draws them")
    func folderDependencies() throws {
        let drawn = try Self.graph("folders")
        let root = Self.repository.appendingPathComponent("Sources/LadderCore")
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.path).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }
        #expect(Set(folders) == Set(drawn.keys), "folders and ARCHITECTURE.md differ")
        let loose = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".swift") }
        #expect(loose.isEmpty, "every file of LadderCore is in a folder: \(loose)")
        for (folder, uses) in drawn {
            #expect(uses.isSubset(of: Set(drawn.keys)), "\(folder) names folders that do not exist: \(uses)")
            #expect(!Self.reachable(from: folder, in: drawn).contains(folder), "\(folder) depends on itself: a cycle")
        }

        // Which folder declares each top-level type.
        var files: [(folder: String, name: String, code: String)] = []
        for folder in folders {
            for file in Self.swiftFiles(under: root.appendingPathComponent(folder)) {
                files.append((folder, file.lastPathComponent, try Self.code(of: file)))
            }
        }
        var owner: [String: String] = [:]
        for file in files {
            let declared = Self.matches(
                #"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect|nonisolated)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)"#,
                in: file.code)
            for type in declared where owner[type] == nil { owner[type] = file.folder }
        }
        #expect(owner.count > 100, "the types of LadderCore are found")

        var references = 0
        for file in files {
            let allowed = Self.reachable(from: file.folder, in: drawn)
            for name in Set(Self.matches(#"\b([A-Z]\w*)\b"#, in: file.code)) {
                guard let other = owner[name], other != file.folder else { continue }
                references += 1
                #expect(
                    allowed.contains(other),
                    "\(file.folder)/\(file.name) uses \(name) from \(other), which ARCHITECTURE.md does not let \(file.folder) reach"
                )
            }
        }
        #expect(references > 100, "references between folders are found")
    }
}
