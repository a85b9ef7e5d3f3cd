import Foundation
import Testing

/// The repository's scripts: a failed build must stop them instead of running an old binary.
@Suite("scripts", .serialized)
struct ScriptsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The scripts that build ladder (and the benchmarks' tools) and then run it.
    static let runners = ["run", "test", "test-web", "bench", "replay-bench", "crashloop", "diskfull", "build-bench"]

    /// The checked builds: each exits with the compiler's failure.
    static let checkedBuilds: Set<String> = ["scripts/build-ladder", "scripts/build-bench"]

    @Test("every script that runs ladder builds it through a checked build script, with nothing that hides a failure")
    func runnersUseTheCheckedBuild() throws {
        for name in Self.runners {
            let text = try String(
                contentsOf: Self.repository.appendingPathComponent("scripts/" + name), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            let build = lines.firstIndex { Self.checkedBuilds.contains($0.trimmingCharacters(in: .whitespaces)) }
            #expect(build != nil, "scripts/\(name) builds through scripts/build-ladder or scripts/build-bench")
            #expect(lines.first { $0.contains("set -euo pipefail") } != nil, "scripts/\(name) stops on a failure")
            let hidden = lines.filter { $0.contains("swift build") && $0.contains("|| true") }
            #expect(hidden.isEmpty, "scripts/\(name) hides a failed swift build: \(hidden)")
        }
    }

    @Test("scripts/build-ladder exits with the compiler's failure and shows its error")
    func failedBuildStops() throws {
        let folder = TemporaryDirectory()
        // A package named ladder whose executable does not compile, and a binary from an
        // "earlier build" that must not be mistaken for a fresh one.
        try folder.write(
            """
            // swift-tools-version: 5.9
            import PackageDescription
            let package = Package(name: "ladder", targets: [.executableTarget(name: "ladder")])
            """, to: "Package.swift")
        try folder.write("let broken: Int = \"not a number\"\n", to: "Sources/ladder/main.swift")
        try FileManager.default.createDirectory(
            atPath: folder.path("scripts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Self.repository.appendingPathComponent("scripts/build-ladder").path,
            toPath: folder.path("scripts/build-ladder"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: folder.path("scripts/build-ladder"))
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(message.contains("cannot convert value"), "the compiler's error is shown: \(message)")
        #expect(message.contains("swift build failed"))
    }
}
