import Foundation
import LadderClient
import LadderCore
import LadderImaging
import LadderManifest

/// A ladder that `ladder build` (the Builder, in this process) made from generated photos,
/// served by a fresh loopback server for each test.
final class ServedLadder: @unchecked Sendable {
    // @unchecked: nothing changes after init but the server's own locked state.
    let project: TemporaryDirectory
    let manifest: Manifest
    let server: LoopbackServer
    /// The folder served: the one that holds manifest.json.
    let root: String

    /// `photos` gradients of 1600 x 1200 pixels (distinct seeds), or `tiny` ones of about 50 x 40,
    /// built with the default pipeline (small_thumb 160, large_thumb 640, progressive full).
    /// The manifest is `build/variants/<manifestName>`.
    convenience init(photos: Int, tiny: Bool = false, manifestName: String = "manifest.json") throws {
        TestImages.start()
        let jpegs = try (0..<photos).map { index in
            tiny
                // Distinct sizes make distinct files, whatever the seed's period.
                ? try TestImages.gradientJPEG(width: 40 + index % 25, height: 30 + index / 25, seed: index, quality: 70)
                : try TestImages.gradientJPEG(width: 1600, height: 1200, seed: index)
        }
        try self.init(jpegs: jpegs, manifestName: manifestName)
    }

    /// The pictures whose scans differ most, built with the default pipeline: camera noise, a
    /// smooth gradient, flat artwork and text (960 x 720 each), their full-size variants with
    /// the scan script chosen for each.
    convenience init(subjects: Void) throws {
        TestImages.start()
        try self.init(jpegs: try ProgressiveSubjects.renders().map { try $0.1.encoded(as: ".jpg[Q=95]") })
    }

    /// `jpegs` as photos/p<index>.jpg, built with the default pipeline.
    init(jpegs: [[UInt8]], manifestName: String = "manifest.json") throws {
        project = TemporaryDirectory("ladder-client")
        for (index, jpeg) in jpegs.enumerated() { try project.write(jpeg, to: "photos/p\(index).jpg") }
        try Pipelines.write(#"{"sources": ["photos"], "manifest": "build/variants/\#(manifestName)"}"#, in: project)
        try Pipelines.build(in: project)
        manifest = try Manifest(jsonData: Data(project.read("build/variants/" + manifestName)))
        root = project.path("build/variants")
        server = try LoopbackServer(serving: root)
    }

    deinit { server.stop() }

    /// The SHA1s of the images, sorted.
    var sha1s: [String] { manifest.images.keys.sorted() }

    /// The URL path the server sees for a variant.
    func urlPath(_ sha1: String, _ variant: String) -> String {
        "/" + (manifest.images[sha1]?.variants[variant]?.path ?? "")
    }

    /// The variant file's bytes on disk: what the client must end up with.
    func fileBytes(_ sha1: String, _ variant: String) throws -> Data {
        Data(try project.read("build/variants/" + (manifest.images[sha1]?.variants[variant]?.path ?? "")))
    }

    /// A client of the served ladder that resolves images through the index files.
    func client(
        cache: DiskCache? = nil, memory: MemoryCache? = nil, limit: Int = 6, everyScan: Bool = false,
        transport: (any LadderTransport)? = nil
    ) -> LadderClient {
        var configuration = LadderClient.Configuration()
        configuration.diskCache = cache
        configuration.memoryCache = memory
        configuration.maxConcurrentDownloads = limit
        configuration.drawsEveryScan = everyScan
        configuration.transport = transport
        return LadderClient(baseURL: server.baseURL, configuration: configuration)
    }

    /// The variant's rung as the client sees it.
    func rung(_ sha1: String, _ variant: String) -> Rung? {
        manifest.images[sha1].flatMap { entry in
            Ladder(ManifestIndex.Entry(entry), baseURL: server.baseURL).rungs.first { $0.name == variant }
        }
    }

    /// The URL path the server sees for an index file of `sha1`.
    func indexPath(_ sha1: String) -> String {
        "/" + ManifestIndex.path(forSHA1: sha1, prefixLength: 2)
    }
}

/// What a load yielded, with when each event arrived.
struct Timeline {
    var events: [(event: LadderEvent, seconds: Double)] = []

    var frames: [Frame] {
        events.compactMap { if case .frame(let frame) = $0.event { frame } else { nil } }
    }

    /// The rungs drawn whole, in order.
    var rungNames: [String] {
        frames.compactMap { $0.stage == .whole ? $0.rung?.name : nil }
    }

    /// The scans drawn of progressive rungs, in order.
    var scanFrames: [(scans: Int, frame: Frame)] {
        frames.compactMap { if case .scans(let count) = $0.stage { (count, $0) } else { nil } }
    }

    var failures: [(String, LadderError)] {
        events.compactMap { if case .failed(let rung, let error) = $0.event { (rung.name, error) } else { nil } }
    }

    /// The whole frame of a rung.
    func frame(of name: String) -> Frame? {
        frames.first { $0.stage == .whole && $0.rung?.name == name }
    }

    /// Loads to the end, timing each event from the call; each frame is also added to `live`
    /// as it arrives, for a test to see while the load runs.
    static func record(
        _ stream: AsyncThrowingStream<LadderEvent, any Error>, live: LiveFrames? = nil
    ) async throws -> Timeline {
        let start = Date()
        var timeline = Timeline()
        for try await event in stream {
            timeline.events.append((event, Date().timeIntervalSince(start)))
            if case .frame(let frame) = event { live?.append(frame) }
        }
        return timeline
    }
}

/// The frames of a load so far, read by a test while the load runs.
final class LiveFrames: @unchecked Sendable {
    // @unchecked: `frames` is only touched under `lock`.
    private let lock = NSLock()
    private var shown: [Frame] = []

    var frames: [Frame] { lock.withLock { shown } }

    func append(_ frame: Frame) { lock.withLock { shown.append(frame) } }
}
