import Foundation
import LadderClient
import LadderCore
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
    /// The manifest is `build/variants/<manifestName>`; with `formats` (`["webp", "avif"]`), every
    /// variant has those siblings.
    init(photos: Int, tiny: Bool = false, manifestName: String = "manifest.json", formats: [String] = []) throws {
        TestImages.start()
        project = TemporaryDirectory("ladder-client")
        for index in 0..<photos {
            let jpeg =
                tiny
                // Distinct sizes make distinct files, whatever the seed's period.
                ? try TestImages.gradientJPEG(width: 40 + index % 25, height: 30 + index / 25, seed: index, quality: 70)
                : try TestImages.gradientJPEG(width: 1600, height: 1200, seed: index)
            try project.write(jpeg, to: "photos/p\(index).jpg")
        }
        let list = formats.map { "\"\($0)\"" }.joined(separator: ", ")
        let variants =
            formats.isEmpty
            ? ""
            : #", "variants": {"small_thumb": {"maxWidth": 160, "maxHeight": 160, "formats": [\#(list)]}, "#
                + #""large_thumb": {"maxWidth": 640, "maxHeight": 640, "formats": [\#(list)]}, "#
                + #""full": {"progressive": {"scans": 5}, "formats": [\#(list)]}}"#
        try Pipelines.write(
            #"{"sources": ["photos"], "manifest": "build/variants/\#(manifestName)"\#(variants)}"#, in: project)
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
    func client(cache: DiskCache? = nil, limit: Int = 6) -> LadderClient {
        LadderClient(baseURL: server.baseURL, cache: cache, maxConcurrentDownloads: limit)
    }
}

/// What a load yielded, with when each event arrived.
struct Timeline {
    var events: [(event: LadderEvent, seconds: Double)] = []

    /// The rungs shown whole, in order.
    var rungNames: [String] {
        events.compactMap { if case .rung(let rung, _, _) = $0.event { rung.name } else { nil } }
    }

    var failures: [(String, LadderError)] {
        events.compactMap { if case .failed(let rung, let error) = $0.event { (rung.name, error) } else { nil } }
    }

    func seconds(of name: String) -> Double? {
        events.first { if case .rung(let rung, _, _) = $0.event { rung.name == name } else { false } }?.seconds
    }

    func data(of name: String) -> Data? {
        for (event, _) in events { if case .rung(let rung, let data, _) = event, rung.name == name { return data } }
        return nil
    }

    /// Loads to the end, timing each event from the call.
    static func record(_ stream: AsyncThrowingStream<LadderEvent, any Error>) async throws -> Timeline {
        let start = Date()
        var timeline = Timeline()
        for try await event in stream { timeline.events.append((event, Date().timeIntervalSince(start))) }
        return timeline
    }
}
