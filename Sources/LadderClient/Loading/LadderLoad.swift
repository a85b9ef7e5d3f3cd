import Foundation
import LadderManifest

/// One load of one image for one view: the walk up its ladder that `LadderClient.load` runs.
struct LadderLoad: Sendable {
    /// The view the image is shown in.
    struct View: Sendable {
        var width: Int
        var height: Int
        var fit: Ladder.Fit
    }

    /// A rung the load needs, and how it draws it.
    struct Step: Sendable {
        var rung: Rung
        /// The file drawn: the smallest the decoder reads.
        var file: Rung.File
        /// The size the view shows it at, at most the rung's.
        var shown: (width: Int, height: Int)
        /// Its name in the disk cache.
        var diskName: String
        /// The scans to draw before the whole file: all but the last of a progressive JPEG's.
        var scanEnds: [Int]

        /// True when `frame`, kept from an earlier load, is a whole picture at least as large as
        /// this view shows the rung.
        func isServed(by frame: Frame) -> Bool {
            frame.stage == .whole && frame.picture.width >= shown.width && frame.picture.height >= shown.height
        }
    }

    /// How far up the ladder a frame is: its rung, then its scans (a whole rung above any scan).
    struct Level: Comparable {
        var rung: Int
        var scans: Int

        init(rung: Int, stage: Frame.Stage) {
            self.rung = rung
            switch stage {
            case .placeholder: scans = -1
            case .scans(let count): scans = count
            case .whole: scans = .max
            }
        }

        static func < (lhs: Level, rhs: Level) -> Bool { (lhs.rung, lhs.scans) < (rhs.rung, rhs.scans) }
    }

    /// What a rung's task tells the walk.
    enum Message: Sendable {
        case frame(Int, Frame)
        case failed(Int, LadderError)
        case done(Int)
    }

    let client: LadderClient
    let sha1: String
    let entry: ManifestIndex.Entry
    let view: View

    /// The image's ladder.
    var ladder: Ladder { Ladder(entry, baseURL: client.baseURL) }

    /// The rungs the view needs, smallest first, each with the file the decoder reads.
    func steps() -> [Step] {
        let formats = client.configuration.decoder.formats
        return ladder.rungs(forWidth: view.width, height: view.height, fit: view.fit)
            .map { rung in
                let file = rung.file(decodableIn: formats)
                return Step(
                    rung: rung, file: file,
                    shown: view.fit.shownSize(
                        width: rung.width, height: rung.height, inWidth: view.width, height: view.height),
                    diskName: DiskCache.name(sha1: sha1, rung: rung.name, format: file.format.rawValue),
                    scanEnds: file.format == .jpeg && rung.progressive ? Array(rung.scanEnds.dropLast()) : [])
            }
    }

    /// Yields the placeholder, what the caches hold, then every rung still needed, as described
    /// on `LadderClient`.
    func run(into output: AsyncThrowingStream<LadderEvent, any Error>.Continuation) async {
        let steps = steps()
        let ladder = ladder
        let last = steps.count - 1
        var shown: Level?
        // The last picture shown that was checked (or the placeholder), and its level: what the
        // view goes back to when a rung whose scans were shown fails.
        var trusted: (frame: Frame, level: Level)?
        func show(_ frame: Frame, at index: Int) {
            var frame = frame
            frame.isFinal = index == last && (frame.stage == .whole || steps.isEmpty)
            output.yield(.frame(frame))
            shown = Level(rung: index, stage: frame.stage)
            if case .scans = frame.stage {} else { trusted = (frame, Level(rung: index, stage: frame.stage)) }
        }

        if let text = entry.placeholder, let hash = ThumbHash(base64: text), let picture = Picture(placeholder: hash) {
            let color = entry.averageColor.flatMap(RGBColor.init)
            let stage = Frame.Stage.placeholder(hash, averageColor: color)
            show(Frame(picture: picture, stage: stage, rung: nil, format: nil, isFinal: false), at: -1)
        }
        guard !steps.isEmpty else { return }

        // The memory cache: the highest rung kept whole at the size shown, then the latest scans
        // kept of a rung above it.
        var first = 0
        if let memory = client.memoryCache {
            if let index = steps.indices.last(where: { step in
                memory.frame(sha1: sha1, file: steps[step].file.sha256).map(steps[step].isServed) ?? false
            }), let frame = memory.frame(sha1: sha1, file: steps[index].file.sha256) {
                show(frame, at: index)
                first = index + 1
            }
            if first > last { return }
            // Shown at once, it makes the rungs below it worthless.
            for index in (first...last).reversed() {
                if let frame = memory.frame(sha1: sha1, file: steps[index].file.sha256), case .scans = frame.stage {
                    show(frame, at: index)
                    first = index
                    break
                }
            }
        }
        // The disk cache: the highest rung it holds is read from there, the rungs above it
        // downloaded, and those below it not needed.
        var fromDisk: Int?
        if let disk = client.diskCache {
            for index in (first...last).reversed() where await disk.contains(steps[index].diskName) {
                fromDisk = index
                break
            }
        }

        let (messages, inbox) = AsyncStream<Message>.makeStream()
        let indices = Array((fromDisk ?? first)...last)
        // Subscriptions in the rungs' order, before any task runs: the smaller rungs are queued
        // first.
        var subscriptions: [Int: DownloadSubscription] = [:]
        for index in indices where index != fromDisk {
            subscriptions[index] = await client.downloads.subscribe(
                to: steps[index].file, scanEnds: steps[index].scanEnds, diskName: steps[index].diskName,
                priority: .visible)
        }
        let tasks = indices.map { [subscriptions, fromDisk] index in
            Task {
                await RungDrawing(load: self, step: steps[index], index: index, inbox: inbox)
                    .draw(subscription: subscriptions[index], fromDisk: index == fromDisk)
                inbox.yield(.done(index))
            }
        }
        let taskByIndex = Dictionary(uniqueKeysWithValues: zip(indices, tasks))
        await withTaskCancellationHandler {
            // Rungs shown whole, failed, dropped or done; and the scans of a rung held back until
            // every rung below it is settled (a lower rung drawn whole, a thumbnail, is sharper
            // than a higher rung's first scans): the latest, or every one when every scan is to be
            // shown.
            var settled = Set((0..<(indices.first ?? 0)))
            var held: [Int: [Frame]] = [:]
            let everyScan = client.configuration.drawsEveryScan
            var remaining = Set(indices)
            func showHeld(_ index: Int) {
                for frame in held.removeValue(forKey: index) ?? []
                where shown.map({ Level(rung: index, stage: frame.stage) > $0 }) ?? true {
                    show(frame, at: index)
                }
            }
            for await message in messages {
                switch message {
                case .frame(let index, let frame):
                    guard shown.map({ Level(rung: index, stage: frame.stage) > $0 }) ?? true else { continue }
                    client.memoryCache?.store(frame, sha1: sha1, file: steps[index].file.sha256, ladder: ladder)
                    guard frame.stage == .whole || settled.isSuperset(of: 0..<index) else {
                        held[index] = (everyScan ? held[index] ?? [] : []) + [frame]
                        continue
                    }
                    if everyScan { showHeld(index) }
                    show(frame, at: index)
                    if frame.stage == .whole {
                        held[index] = nil
                        // Lower rungs are no longer worth their bytes.
                        for lower in 0...index {
                            settled.insert(lower)
                            if lower < index { taskByIndex[lower]?.cancel() }
                        }
                        if index == last { remaining = [] }
                    }
                case .failed(let index, let error):
                    output.yield(.failed(steps[index].rung, error))
                    settled.insert(index)
                    held[index] = nil
                    client.memoryCache?.remove(sha1: sha1, file: steps[index].file.sha256)
                    // The view goes back to the last checked picture when this rung's scans were
                    // shown.
                    if shown?.rung == index, let trusted {
                        output.yield(.frame(trusted.frame))
                        shown = trusted.level
                    }
                case .done(let index):
                    remaining.remove(index)
                    settled.insert(index)
                }
                for index in held.keys.sorted() where settled.isSuperset(of: 0..<index) { showHeld(index) }
                if remaining.isEmpty { break }
            }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
        for task in tasks { task.cancel() }
        inbox.finish()
    }
}

/// One rung of a load: read from the disk cache, or downloaded (shared with other loads) and
/// drawn scan by scan, then whole.
struct RungDrawing {
    let load: LadderLoad
    let step: LadderLoad.Step
    let index: Int
    let inbox: AsyncStream<LadderLoad.Message>.Continuation

    private var client: LadderClient { load.client }

    func draw(subscription: DownloadSubscription?, fromDisk: Bool) async {
        let decoder = client.configuration.decoder.makeDecoder(
            for: step.file, of: step.rung, width: step.shown.width, height: step.shown.height)
        if fromDisk {
            if let data = await client.diskCache?.data(named: step.diskName, sha256: step.file.sha256) {
                drawWhole(data, decoder)
                return
            }
            // Damaged or gone: downloaded after all.
            let subscription = await client.downloads.subscribe(
                to: step.file, scanEnds: step.scanEnds, diskName: step.diskName, priority: .visible)
            await follow(subscription, decoder)
            return
        }
        if let subscription { await follow(subscription, decoder) }
    }

    /// Draws the download's scans as they complete, then the whole file; leaves the download
    /// when done or cancelled.
    private func follow(_ subscription: DownloadSubscription, _ decoder: any IncrementalDecoding) async {
        var drawn = 0
        updates: for await update in subscription.updates {
            if Task.isCancelled { break }
            switch update {
            case .received(let count):
                guard drawScans(subscription.buffer.prefix(count), decoder, drawn: &drawn) else { break updates }
            case .finished(.success(let data)):
                // Updates are coalesced: scans whose bytes came with the last ones are drawn now
                // when every scan is to be drawn.
                if client.configuration.drawsEveryScan {
                    guard drawScans(data, decoder, drawn: &drawn) else { break updates }
                }
                drawWhole(data, decoder)
            case .finished(.failure(let error)):
                inbox.yield(.failed(index, error))
            }
        }
        await client.downloads.unsubscribe(subscription)
    }

    /// Draws the scans `data` completes past the `drawn` ones: the latest, or each in turn when
    /// every scan is to be drawn. False when the decoder failed (the failure is reported).
    private func drawScans(_ data: Data, _ decoder: any IncrementalDecoding, drawn: inout Int) -> Bool {
        let complete = step.scanEnds.prefix { $0 <= data.count }.count
        guard complete > drawn else { return true }
        let wanted = client.configuration.drawsEveryScan ? Array((drawn + 1)...complete) : [complete]
        for scans in wanted {
            do {
                guard let picture = try decoder.picture(from: data, scans: scans, isComplete: false) else { break }
                drawn = scans
                send(picture, .scans(scans))
            } catch {
                inbox.yield(.failed(index, error))
                return false
            }
        }
        return true
    }

    private func drawWhole(_ data: Data, _ decoder: any IncrementalDecoding) {
        do {
            if let picture = try decoder.picture(from: data, scans: step.rung.scans, isComplete: true) {
                send(picture, .whole)
            }
        } catch {
            inbox.yield(.failed(index, error))
        }
    }

    private func send(_ picture: Picture, _ stage: Frame.Stage) {
        inbox.yield(
            .frame(
                index, Frame(picture: picture, stage: stage, rung: step.rung, format: step.file.format, isFinal: false))
        )
    }
}
