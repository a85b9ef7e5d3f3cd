import Foundation
import Testing

/// The repository's scripts: a failed build must stop them instead of running an old binary.
@Suite("scripts", .serialized)
struct ScriptsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The scripts that build ladder (and the benchmarks' tools) and then run it.
    static let runners = [
        "run", "test", "test-web", "bench", "bench-verify", "replay-bench", "crashloop", "diskfull", "build-bench",
        "verify-floor",
    ]

    /// The checked builds: each exits with the compiler's failure.
    static let checkedBuilds: Set<String> = ["scripts/build-ladder", "scripts/build-bench"]

    /// Scripts that run a ladder binary they are given and never build one: `compare_binaries.py`
    /// and `worker-cost` take the binaries to compare as arguments, and `bench-placeholder`
    /// needs one built with a line ladder does not ship (it refuses any other).
    static let givenBinaries: Set<String> = ["compare_binaries.py", "worker-cost", "bench-placeholder"]

    static func scripts() throws -> [(name: String, text: String)] {
        let folder = repository.appendingPathComponent("scripts")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().compactMap { name in
            var isDirectory: ObjCBool = false
            let path = folder.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                return nil
            }
            return (name, try String(contentsOfFile: path, encoding: .utf8))
        }
    }

    /// Copies the scripts `names` into `folder`'s scripts/, with scripts/usage.sh, which they
    /// all source.
    static func copyScripts(_ names: [String], into folder: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(atPath: folder.path("scripts"), withIntermediateDirectories: true)
        for name in names + ["usage.sh"] {
            try FileManager.default.copyItem(
                atPath: repository.appendingPathComponent("scripts/" + name).path,
                toPath: folder.path("scripts/" + name))
        }
    }

    @Test("every script that runs ladder builds it through a checked build script, with nothing that hides a failure")
    func runnersUseTheCheckedBuild() throws {
        for name in Self.runners {
            let text = try String(
                contentsOf: Self.repository.appendingPathComponent("scripts/" + name), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            let build = lines.firstIndex { Self.checkedBuilds.contains($0.trimmingCharacters(in: .whitespaces)) }
            #expect(build != nil, "scripts/\(name) builds through scripts/build-ladder or scripts/build-bench")
            #expect(lines.first { $0.contains("set -euo pipefail") } != nil, "scripts/\(name) stops on a failure")
        }
        // Every other script that runs the release build by default builds it first, checked.
        var defaults = 0
        for (name, text) in try Self.scripts() where !Self.givenBinaries.contains(name) {
            let hidden = text.split(separator: "\n").filter { $0.contains("swift build") && $0.contains("|| true") }
            #expect(hidden.isEmpty, "scripts/\(name) hides a failed swift build: \(hidden)")
            // The release build of ladder itself, not of ladder-bench.
            let runsRelease =
                text.components(separatedBy: ".build/release/ladder").dropFirst().contains { !$0.hasPrefix("-") }
                || text.contains(#""release", "ladder")"#)
            guard runsRelease, !Self.runners.contains(name) else { continue }
            defaults += 1
            #expect(
                text.contains(#""scripts", "build-ladder""#) || text.contains(#""scripts", "build-bench""#),
                "scripts/\(name) runs the release build without building it through scripts/build-ladder")
        }
        #expect(defaults >= 4, "build-cost, bench-index, scan-scripts, bench-commit, bench-store")
    }

    @Test(
        "in CI, scripts/bootstrap stops when it cannot install a test oracle; elsewhere it says the tests are skipped",
        arguments: [true, false])
    func bootstrapInCI(_ inCI: Bool) throws {
        // A copy of the script in a project whose sample photos are already fetched, run with a
        // PATH of the system's tools minus djpeg and jpegtran, and an apt-get that fails.
        let folder = TemporaryDirectory()
        try Self.copyScripts(["bootstrap"], into: folder)
        try folder.write("fetched", to: "examples/photos/.fetched")
        let bin = folder.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let hidden: Set = ["djpeg", "jpegtran", "apt-get", "brew", "sudo"]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            where !hidden.contains(name) && !FileManager.default.fileExists(atPath: bin + "/" + name) {
                try? FileManager.default.createSymbolicLink(
                    atPath: bin + "/" + name, withDestinationPath: directory + "/" + name)
            }
        }
        try folder.write("#!/bin/sh\nexit 100\n", to: "bin/apt-get")
        #expect(chmod(folder.path("bin/apt-get"), 0o755) == 0)
        // The upload test's tools, found where the bootstrap looks for them.
        for tool in ["moto_server", "aws"] {
            try folder.write("#!/bin/sh\n", to: ".build/upload-tools/bin/" + tool)
            #expect(chmod(folder.path(".build/upload-tools/bin/" + tool), 0o755) == 0)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin
        environment["CI"] = inCI ? "true" : nil
        let (status, _, message) = try ChildProcess.run(folder.path("scripts/bootstrap"), [], environment: environment)
        if inCI {
            #expect(status != 0, "\(message)")
            #expect(message.contains("djpeg could not be installed") && message.contains("CI=true"), "\(message)")
        } else {
            #expect(status == 0, "\(message)")
            #expect(message.contains("djpeg could not be installed") && message.contains("skipped"), "\(message)")
            #expect(message.contains("jpegtran could not be installed"), "\(message)")
        }
    }

    /// Shell scripts whose options, `--help` included, go to the program they run: its own
    /// usage answers.
    static let delegatedHelp: Set<String> = ["bench-verify", "formats-oracle", "run", "test-web"]

    @Test("every shell script answers --help with its header comment and exit 0, before doing anything")
    func shellScriptsAnswerHelp() throws {
        var checked = 0
        for (name, text) in try Self.scripts()
        where text.hasPrefix("#!/usr/bin/env bash") && !Self.delegatedHelp.contains(name) {
            // The script alone in an empty project, with a PATH of bash, env, sed and dirname:
            // a script that went on to do its job would fail at its first other command.
            let folder = TemporaryDirectory()
            try Self.copyScripts([name], into: folder)
            try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: true)
            for tool in ["/bin/bash", "/usr/bin/env", "/bin/sed", "/usr/bin/dirname"] {
                try FileManager.default.createSymbolicLink(
                    atPath: folder.path("bin/" + URL(fileURLWithPath: tool).lastPathComponent),
                    withDestinationPath: tool)
            }
            let (status, output, _) = try ChildProcess.run(
                folder.path("scripts/" + name), ["--help"], in: folder.path, environment: ["PATH": folder.path("bin")])
            let usage = String(decoding: output, as: UTF8.self)
            let header = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
                .prefix { $0.hasPrefix("#") }
                .map { $0.dropFirst($0.hasPrefix("# ") ? 2 : 1) }.joined(separator: "\n")
            #expect(status == 0, "scripts/\(name) --help")
            #expect(!header.isEmpty && usage == header + "\n", "scripts/\(name) --help prints its header comment")
            checked += 1
        }
        #expect(checked >= 13, "bench, bootstrap, build-ladder, lint, test and the other shell scripts")
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
        try Self.copyScripts(["build-ladder"], into: folder)

        let (status, _, message) = try ChildProcess.run(folder.path("scripts/build-ladder"), [])
        #expect(status != 0)
        #expect(message.contains("cannot convert value"), "the compiler's error is shown: \(message)")
        #expect(message.contains("swift build failed"))
    }
}
