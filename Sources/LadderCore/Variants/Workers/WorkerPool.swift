import Foundation
import LadderImaging
import Synchronization

/// Renders in child processes (`ladder __render-worker`), one source at a time in each: the
/// only renderer a build or a check uses, so every source is rendered the same way, under the
/// same time limit, with the loaders its worker fixed when it started. Tests ask for one worker.
///
/// A worker that takes longer than the time limit is killed (libjpeg cannot be interrupted from
/// inside, so a many-scan file could otherwise run for minutes), and one that crashes costs only
/// the source it held; both are replaced for the next source. Which render starts when, and on
/// which idle worker, is the pool's `Scheduler`'s to decide.
package final class WorkerPool: SourceRendering, @unchecked Sendable {
    // @unchecked: all mutable state is in `scheduler` (behind its lock) or atomic; a Worker is
    // used by one thread at a time.

    package struct Settings: Sendable {
        /// The ladder executable to start workers from.
        package var executable: String
        /// How long one source may take.
        package var timeLimit: Duration
        /// Added to the workers' environment.
        package var environment: [String: String]
        /// Renders at once (worker processes alive).
        package var workers: Int
        /// Pixels of the sources rendered at once (one source may always run alone).
        package var pixelBudget: Int
        /// A worker is replaced after this many sources, so that memory fragmentation inside a
        /// long-lived decoder never accumulates over a big batch.
        package var rendersPerWorker: Int

        package init(
            executable: String, timeLimit: Duration = .seconds(Defaults.timeoutSeconds),
            environment: [String: String] = [:], workers: Int = Defaults.jobs, pixelBudget: Int = Defaults.maxPixels,
            rendersPerWorker: Int = 200
        ) {
            self.executable = executable
            self.timeLimit = timeLimit
            self.environment = environment
            self.workers = workers
            self.pixelBudget = pixelBudget
            self.rendersPerWorker = rendersPerWorker
        }

        /// `workers` workers that enforce `limits`: the time limit, a pixel budget equal to the
        /// pixel limit, and libjpeg's memory limit (JPEGMEM), so that a decode bigger than the
        /// pixel limit allows fails cleanly.
        package init(for limits: DecodeLimits, executable: String, workers: Int) {
            self.init(
                executable: executable, timeLimit: .milliseconds(Int64(limits.timeoutSeconds * 1000)),
                environment: Self.workerEnvironment(limits), workers: workers, pixelBudget: limits.maxPixels)
        }

        /// The most a worker's render buffer holds (`Imaging.reuseRenderMemory`): a 2560x1920
        /// picture, then its coefficients.
        static let renderBufferLimit = 64 << 20

        /// The size from which a worker's malloc maps each block on its own, and unmaps it when
        /// freed: above a 2560x1920 picture (15 MB), so that pictures and replay planes are
        /// reused from the heap, but below what libvips' WebP loader allocates for a wallpaper's
        /// whole frame (48 MB for 16 megapixels), which the heap would otherwise keep for the
        /// worker's life (docs/BENCHMARKS.md, "Memory per job").
        static let mmapThreshold = 16 << 20

        /// The formats the worker's libvips loaders may read (fixed once, when it starts),
        /// libjpeg's memory limit, and glibc allocator settings that keep freed pictures in the
        /// worker for the next image instead of unmapping them and mapping (and zeroing) them
        /// again (docs/BENCHMARKS.md, "Memory per job"). One malloc arena: libvips decodes on its
        /// own thread, and with an arena per thread the memory freed there was never reused by
        /// the encoder on the main thread.
        static func workerEnvironment(_ limits: DecodeLimits) -> [String: String] {
            [
                RenderWorker.formatsVariable: limits.formats.map(\.rawValue).sorted().joined(separator: ","),
                "JPEGMEM": "\(limits.decoderMemoryBytes >> 20)M",
                "MALLOC_ARENA_MAX": "1",
                "MALLOC_MMAP_THRESHOLD_": "\(mmapThreshold)",
                "MALLOC_TRIM_THRESHOLD_": "\(128 << 20)",
            ]
        }

    }

    package let settings: Settings
    let scheduler: Scheduler<Worker>
    private let requests = Atomic<Int>(0)
    private let prepared = Atomic<Bool>(false)
    private let imagingPeak = Atomic<Int>(0)
    private let mallocPeak = Atomic<Int>(0)

    /// Sources this pool was asked to render so far.
    package var sourcesRequested: Int { requests.load(ordering: .relaxed) }

    /// The most memory libvips held at once in any one of this pool's workers, as they reported
    /// it after their renders (0 before the first).
    package var imagingPeakBytes: Int { imagingPeak.load(ordering: .relaxed) }

    /// The most any one of this pool's workers' malloc held from the system after a render
    /// (its heap, used or free: what it freed but kept counts), as they reported it; 0 before
    /// the first render, or where the C library cannot say.
    package var mallocPeakBytes: Int { mallocPeak.load(ordering: .relaxed) }

    package init(settings: Settings) {
        self.settings = settings
        self.scheduler = Scheduler(slots: settings.workers, pixelBudget: settings.pixelBudget)
        // A worker that dies while being written to must not kill the build with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { shutdown() }

    package func render(
        _ bytes: [UInt8], variants: [VariantRecipe], settings renderSettings: RenderSettings
    ) throws(RenderFailure) -> RenderedSource {
        // Sources whose size cannot be read from their first bytes count as compressed about 4:1.
        let declared = ImageDimensions.peek(bytes).map { $0.width * $0.height } ?? bytes.count * 4
        let header = RenderRequestHeader(variants: variants, settings: renderSettings)
        return try exchange(header, payload: bytes, pixels: declared).rendered
    }

    /// Renders the source at `path`, which the worker reads itself and checks against `sha1`:
    /// the build process never holds the source's bytes. `pixels` is what the source is
    /// expected to decode to, for the pool's pixel budget. Returns what was rendered and the
    /// length of the source. A file that cannot be read, or whose bytes are no longer those of
    /// `sha1`, fails without concerning the source's content.
    func render(
        file path: String, sha1: String, pixels: Int, variants: [VariantRecipe], settings renderSettings: RenderSettings
    ) throws(RenderFailure) -> (rendered: RenderedSource, sourceBytes: Int) {
        let header = RenderRequestHeader(
            variants: variants, settings: renderSettings, file: SourceFileRequest(path: path, sha1: sha1))
        return try exchange(header, payload: [], pixels: pixels)
    }

    /// Sends one request to a worker admitted for `pixels` and reads its answer.
    private func exchange(
        _ request: RenderRequestHeader, payload bytes: [UInt8], pixels declared: Int
    ) throws(RenderFailure) -> (rendered: RenderedSource, sourceBytes: Int) {
        let pixels = min(max(1, declared), settings.pixelBudget)
        requests.add(1, ordering: .relaxed)
        let reused = scheduler.admit(pixels: pixels)
        defer { scheduler.leave(pixels: pixels) }
        let worker: Worker
        if let reused {
            worker = reused
        } else {
            do {
                worker = try Worker.start(settings)
            } catch {
                throw RenderFailure("cannot start a render worker: \(error)", concernsTheSource: false)
            }
        }
        try waitUntilReady(worker)
        let deadline = ContinuousClock.now.advanced(by: settings.timeLimit)
        do {
            try worker.channel.send(tag: FrameChannel.requestTag, header: request, payload: bytes)
            let (header, payload) = try worker.channel.receive(
                tag: FrameChannel.responseTag, as: RenderResponseHeader.self, deadline: deadline)
            worker.renders += 1
            if let peak = header.imagingPeakBytes { _ = imagingPeak.max(peak, ordering: .relaxed) }
            if let bytes = header.mallocBytes { _ = mallocPeak.max(bytes, ordering: .relaxed) }
            if worker.renders >= settings.rendersPerWorker {
                worker.finish()
            } else {
                scheduler.park(worker)
            }
            return (try header.renderedSource(payload: payload), header.sourceBytes ?? bytes.count)
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

    /// How long a worker may take to start (load and start its libraries) before it is given up.
    static let startLimit = Duration.seconds(60)

    /// Waits, the first time a worker is used, for it to say it has started: its start-up,
    /// slow on a loaded machine, is not counted against a source's time limit. A worker that
    /// does not start is no fault of the source.
    private func waitUntilReady(_ worker: Worker) throws(RenderFailure) {
        guard !worker.isReady else { return }
        do {
            _ = try worker.channel.receive(
                tag: FrameChannel.readyTag, as: FrameChannel.Ready.self,
                deadline: ContinuousClock.now.advanced(by: Self.startLimit))
            worker.isReady = true
        } catch {
            let status = worker.kill()
            throw RenderFailure("a render worker did not start (\(status))", concernsTheSource: false)
        }
    }

    /// Starts the workers ahead of the first render, so that their start-up (loading libvips,
    /// in the child processes) overlaps with hashing sources. Only the first call starts any;
    /// without one, each worker starts when a render first needs it. A worker that fails to
    /// start is started again when a source needs it.
    package func prepare() {
        guard !prepared.exchange(true, ordering: .relaxed) else { return }
        for worker in (0..<settings.workers).compactMap({ _ in try? Worker.start(settings) }) {
            scheduler.park(worker)
        }
    }

    /// Stops the idle workers (each ends when its input closes).
    package func shutdown() {
        for worker in scheduler.takeIdleWorkers() { worker.finish() }
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}

extension WorkerPool {
    /// The pool's one scheduler: decides when a render may start, and hands it an idle worker.
    /// At most `slots` renders run at once, and no more pixels are in flight than
    /// `pixelBudget`, except that a render may always start when nothing else runs. A
    /// 100-megapixel source therefore runs alone, instead of several of them multiplying memory
    /// by the number of workers, while small sources run side by side. `Idle` is what it hands
    /// out: the pool's `Worker`s.
    package final class Scheduler<Idle>: @unchecked Sendable {
        // @unchecked: all state is guarded by `condition`.

        private let condition = NSCondition()
        private let slots: Int
        private let pixelBudget: Int
        private var running = 0
        private var pixelsInFlight = 0
        private var waiting = 0
        private var idle: [Idle] = []

        package init(slots: Int, pixelBudget: Int) {
            self.slots = max(1, slots)
            self.pixelBudget = max(1, pixelBudget)
        }

        /// Waits until a render of `pixels` pixels may start, counts it, and hands it an idle
        /// worker when there is one (else the caller starts one).
        package func admit(pixels: Int) -> Idle? {
            condition.lock()
            defer { condition.unlock() }
            waitForRoom(pixels: pixels)
            return idle.popLast()
        }

        /// With the lock held: waits until there is room for `pixels` more, and counts them.
        private func waitForRoom(pixels: Int) {
            waiting += 1
            while running >= slots || (running > 0 && pixelsInFlight + pixels > pixelBudget) {
                condition.wait()
            }
            waiting -= 1
            running += 1
            pixelsInFlight += pixels
        }

        /// How many renders are waiting for room: what tests observe, instead of guessing how
        /// long a render takes to be held back.
        package var waitingRenders: Int {
            condition.lock()
            defer { condition.unlock() }
            return waiting
        }

        /// Counts a render of `pixels` pixels as finished.
        package func leave(pixels: Int) {
            condition.lock()
            running -= 1
            pixelsInFlight -= pixels
            condition.broadcast()
            condition.unlock()
        }

        /// Keeps a started worker for the next render.
        func park(_ worker: Idle) {
            condition.lock()
            idle.append(worker)
            condition.unlock()
        }

        /// The idle workers, which the scheduler forgets.
        func takeIdleWorkers() -> [Idle] {
            condition.lock()
            defer {
                idle = []
                condition.unlock()
            }
            return idle
        }
    }
}

/// One worker process and the pipes to it. It passes between threads only through the pool's
/// mutex, and one thread at a time uses it.
final class Worker: @unchecked Sendable {
    let process: Process
    let channel: FrameChannel
    /// Sources rendered so far.
    var renders = 0
    /// True once the worker said it has started.
    var isReady = false

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
        if process.isRunning { Platform.killHard(process.processIdentifier) }
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
        // Closing its input ends the worker; its teardown runs on its own time, not the build's.
        try? toWorker.close()
        try? fromWorker.close()
    }

}
