import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Renders in child processes (`ladder __render-worker`), one source at a time in each.
///
/// A worker that takes longer than the time limit is killed (libjpeg cannot be interrupted from
/// inside, so a many-scan file could otherwise run for minutes), and one that crashes costs only
/// the source it held; both are replaced for the next source.
public final class WorkerPool: SourceRendering, @unchecked Sendable {
    // @unchecked: all mutable state is behind `idle`'s mutex; a Worker is used by one thread at a time.

    public struct Settings: Sendable {
        /// The ladder executable to start workers from.
        public var executable: String
        /// How long one source may take.
        public var timeLimit: Duration
        /// Added to the workers' environment.
        public var environment: [String: String]

        public init(executable: String, timeLimit: Duration = .seconds(30), environment: [String: String] = [:]) {
            self.executable = executable
            self.timeLimit = timeLimit
            self.environment = environment
        }

        /// Workers that enforce `limits`: the time limit, and libjpeg's memory limit (JPEGMEM),
        /// so that a decode bigger than the pixel limit allows fails cleanly.
        public init(for limits: DecodeLimits, executable: String) {
            self.init(
                executable: executable, timeLimit: .milliseconds(Int64(limits.timeoutSeconds * 1000)),
                environment: ["JPEGMEM": "\(limits.decoderMemoryBytes >> 20)M"])
        }

    }

    public let settings: Settings
    private let idle = Mutex<[Worker]>([])

    public init(settings: Settings) {
        self.settings = settings
        // A worker that dies while being written to must not kill the build with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { shutdown() }

    public func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings renderSettings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        let worker: Worker
        if let reused = idle.withLock({ $0.popLast() }) {
            worker = reused
        } else {
            do {
                worker = try Worker.start(settings)
            } catch {
                throw RenderFailure("cannot start a render worker: \(error)")
            }
        }
        let deadline = ContinuousClock.now.advanced(by: settings.timeLimit)
        do {
            try worker.channel.send(
                tag: FrameChannel.requestTag, header: RenderRequestHeader(variants: variants, settings: renderSettings),
                payload: bytes)
            let (header, payload) = try worker.channel.receive(
                tag: FrameChannel.responseTag, as: RenderResponseHeader.self, deadline: deadline)
            idle.withLock { $0.append(worker) }
            return try header.renderedSource(payload: payload)
        } catch let failure as RenderFailure {
            throw failure
        } catch FrameChannel.Failure.timedOut {
            worker.kill()
            throw RenderFailure(
                "took longer than the time limit of \(Self.describe(settings.timeLimit)); its decoding was stopped")
        } catch {
            let status = worker.kill()
            throw RenderFailure("the decoder crashed on this file (\(status))")
        }
    }

    /// Stops the idle workers (each ends when its input closes).
    public func shutdown() {
        let workers = idle.withLock { workers in
            defer { workers = [] }
            return workers
        }
        for worker in workers { worker.finish() }
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}

/// One worker process and the pipes to it. It passes between threads only through the pool's
/// mutex, and one thread at a time uses it.
final class Worker: @unchecked Sendable {
    let process: Process
    let channel: FrameChannel
    private let toWorker: FileHandle
    private let fromWorker: FileHandle

    private init(process: Process, toWorker: FileHandle, fromWorker: FileHandle) {
        self.process = process
        self.toWorker = toWorker
        self.fromWorker = fromWorker
        self.channel = FrameChannel(input: fromWorker.fileDescriptor, output: toWorker.fileDescriptor)
    }

    static func start(_ settings: WorkerPool.Settings) throws -> Worker {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: settings.executable)
        process.arguments = [RenderWorker.subcommand]
        process.environment = ProcessInfo.processInfo.environment.merging(settings.environment) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Close the parent's copies of the child's ends, so a dead worker reads as end of file.
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        return Worker(process: process, toWorker: input.fileHandleForWriting, fromWorker: output.fileHandleForReading)
    }

    /// Kills the worker and describes how it ended.
    @discardableResult
    func kill() -> String {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? toWorker.close()
        try? fromWorker.close()
        switch process.terminationReason {
        case .uncaughtSignal:
            let signal = process.terminationStatus
            let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
            return "signal \(signal), \(name)"
        case .exit:
            return "exit status \(process.terminationStatus)"
        @unknown default:
            return "ended"
        }
    }

    /// Closes the worker's input, so it ends, and waits for it.
    func finish() {
        try? toWorker.close()
        process.waitUntilExit()
        try? fromWorker.close()
    }
}
