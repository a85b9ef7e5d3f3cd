import Foundation
import LadderImaging

/// The render worker's side: starts its image libraries, says it is ready, then reads render
/// requests on standard input, answers each on standard output, and ends when its input
/// closes. A request carries the source's bytes or names its file, which the worker reads and
/// checks against its SHA1. One source at a time, so everything libvips reports belongs to
/// that source; a crash or a runaway decode costs only this process.
package enum RenderWorker {
    /// The hidden subcommand that starts a worker.
    package static let subcommand = "__render-worker"

    /// The environment variable that lists the formats this worker's libvips may decode,
    /// separated by commas; every format when it is not set.
    package static let formatsVariable = "LADDER_WORKER_FORMATS"

    /// Serves requests until standard input closes. Returns the process exit status.
    package static func serve(input: Int32 = 0, output: Int32 = 1) -> Int32 {
        let formats = ProcessInfo.processInfo.environment[formatsVariable].map {
            Set($0.split(separator: ",").compactMap { ImageFormat(rawValue: String($0)) })
        }
        do {
            // Only the libvips modules these formats need: each other one maps its libraries
            // into every worker (docs/BENCHMARKS.md, "Memory per job").
            try Imaging.start(threadsPerImage: 1, tileHeight: 16, formats: formats ?? Set(ImageFormat.allCases))
        } catch {
            return 70
        }
        // The picture and then the coefficients of each render reuse one buffer.
        Imaging.reuseRenderMemory(upTo: WorkerPool.Settings.renderBufferLimit)
        // The loaders are fixed once, for the life of the process: no render changes them.
        if let formats { Imaging.allowLoaders(formats) }
        let channel = FrameChannel(input: input, output: output)
        // Tell the pool that start-up is over, so that its time limit counts renders only.
        do {
            try channel.send(tag: FrameChannel.readyTag, header: FrameChannel.Ready(), payload: [])
        } catch {
            return 74
        }
        let renderer = ExclusiveRenderer()
        while true {
            let header: RenderRequestHeader
            var bytes: [UInt8]
            do {
                (header, bytes) = try channel.receive(tag: FrameChannel.requestTag, as: RenderRequestHeader.self)
            } catch .closed {
                return 0
            } catch {
                return 65
            }
            var response: RenderResponseHeader
            var answer: [UInt8] = []
            do {
                if let file = header.file { bytes = try file.read(limit: header.settings.limits.maxFileBytes) }
                let sourceBytes = bytes.count
                // The only copy of the source: the renderer frees it once decoded.
                let rendered = try renderer.render(
                    releasing: &bytes, variants: header.variants, settings: header.settings)
                response = RenderResponseHeader(rendered, sourceBytes: sourceBytes)
                response.imagingPeakBytes = Imaging.peakTrackedBytes
                response.mallocBytes = Allocator.footprintBytes
                answer.reserveCapacity(
                    rendered.variants.reduce(0) { $0 + $1.bytes.count + $1.siblings.reduce(0) { $0 + $1.bytes.count } })
                for variant in rendered.variants {
                    answer += variant.bytes
                    for sibling in variant.siblings { answer += sibling.bytes }
                }
            } catch {
                response = RenderResponseHeader(failure: error)
            }
            do {
                try channel.send(tag: FrameChannel.responseTag, header: response, payload: answer)
            } catch {
                return 74
            }
        }
    }
}
