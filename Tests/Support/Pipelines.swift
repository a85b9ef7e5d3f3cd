import Foundation
import LadderCore

/// Writing pipelines and running builds in temporary folders.
enum Pipelines {
    /// Writes pipeline.json into `folder` with `json` as its content.
    static func write(_ json: String, in folder: TemporaryDirectory) throws {
        try folder.write(json, to: "pipeline.json")
    }

    /// Loads pipeline.json from `folder`.
    static func configuration(in folder: TemporaryDirectory) throws -> PipelineConfiguration {
        try PipelineConfiguration.load(from: folder.path("pipeline.json"))
    }

    /// Builds the pipeline in `folder` (or one shard of it) in this process, rendering in one
    /// worker process as every build does, and returns the report.
    @discardableResult
    static func build(in folder: TemporaryDirectory, jobs: Int = 2, shard: Shard? = nil) throws -> BuildReport {
        try build(configuration(in: folder), options: Builder.Options(jobs: jobs, shard: shard))
    }

    /// Builds `configuration` with `options`, rendering in one worker process, telling
    /// `observer` what happens.
    @discardableResult
    static func build(
        _ configuration: PipelineConfiguration, options: Builder.Options, observer: (any BuildObserving)? = nil
    ) throws -> BuildReport {
        TestImages.start()
        let workers = try LadderExecutable.workers(for: configuration)
        defer { workers.shutdown() }
        return try Builder(configuration: configuration, options: options, workers: workers, observer: observer).run()
    }

    /// Checks the pipeline in `folder` as `ladder check` does (the given `paths`, or every
    /// source), decoding in one worker process.
    static func check(
        in folder: TemporaryDirectory, paths: [String]? = nil, jobs: Int = 2, strict: Bool = false
    ) throws -> PreflightReport {
        let configuration = try configuration(in: folder)
        let workers = try LadderExecutable.workers(for: configuration)
        defer { workers.shutdown() }
        return try Preflight(configuration: configuration, workers: workers, jobs: jobs, strict: strict).run(
            paths: paths)
    }

    /// Merges the partial manifests of the pipeline in `folder`.
    @discardableResult
    static func merge(in folder: TemporaryDirectory, keepPartials: Bool = false) throws -> MergeReport {
        try ManifestMerger(configuration: try configuration(in: folder), keepPartials: keepPartials).run()
    }

}

/// An executable of the package built next to the tests (`swift build` puts products beside
/// the test bundle, a few folders up from its binary), or nil when it has not been built.
enum BuiltExecutable {
    static func path(named name: String) -> String? {
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}

/// The built `ladder` executable, for tests that run it as a separate process (killing it,
/// render workers), or nil when it has not been built next to the tests.
enum LadderExecutable {
    static let path = BuiltExecutable.path(named: "ladder")

    static let absenceNote = "the ladder executable is not built next to the tests; process tests are skipped"

    /// Thrown where a test needs render workers and the executable is not built.
    struct Absent: Error, CustomStringConvertible {
        var description: String {
            "the ladder executable is not built next to the tests (scripts/build-ladder builds it): builds render in its workers"
        }
    }

    /// One render worker for `configuration`'s limits, started from the built executable
    /// when the first source needs it: what tests build and check with.
    static func workers(for configuration: PipelineConfiguration) throws(Absent) -> WorkerPool {
        guard let path else { throw Absent() }
        return WorkerPool(settings: WorkerPool.Settings(for: configuration.limits, executable: path, workers: 1))
    }

    /// Runs ladder with `arguments` in `directory` and returns its exit status and output.
    static func run(
        _ arguments: [String], in directory: String
    ) throws -> (status: Int32, output: String, error: String) {
        let result = try ChildProcess.run(path!, arguments, in: directory)
        return (result.status, String(decoding: result.output, as: UTF8.self), result.error)
    }
}

/// Running a child process with its output captured.
enum ChildProcess {
    /// Runs `executable` with `arguments` in `directory` (and in `environment`, when given,
    /// instead of this process's) to its end, feeding it `input` on standard input, and returns
    /// its exit status and what it wrote to each stream. Both streams are drained at once (standard error
    /// on a thread of its own, standard input written on another), so a child that fills one
    /// pipe's buffer while the other is being read never deadlocks with its parent.
    static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil,
        environment: [String: String]? = nil, input: [UInt8] = []
    ) throws -> (status: Int32, output: [UInt8], error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        let feed = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input.isEmpty ? FileHandle.nullDevice : feed
        try process.run()
        let errorText = Drained()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errorText.data = error.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        if !input.isEmpty {
            let writer = feed.fileHandleForWriting
            let bytes = Data(input)
            Thread.detachNewThread {
                try? writer.write(contentsOf: bytes)  // a child that stops reading early closes it
                try? writer.close()
            }
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](outputData), String(decoding: errorText.data, as: UTF8.self))
    }

    /// What the reading thread collected; read only after it signalled.
    private final class Drained: @unchecked Sendable {
        var data = Data()
    }
}

/// Small file systems for disk-full tests.
enum DiskImage {
    /// True when this machine lets the tests mount a tmpfs (root, or a user namespace that
    /// allows it): tried once on a scratch folder.
    static let canMountTmpfs: Bool = {
        let folder = TemporaryDirectory("ladder-mount-probe")
        guard mountTmpfs(at: folder.path, megabytes: 1) else { return false }
        unmount(folder.path)
        return true
    }()

    /// Mounts a tmpfs of `megabytes` at `path`; false when this machine does not allow it.
    static func mountTmpfs(at path: String, megabytes: Int) -> Bool {
        run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
    }

    static func unmount(_ path: String) {
        _ = run("/bin/umount", [path])
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
