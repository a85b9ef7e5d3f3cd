import Foundation
public import LadderManifest

extension LadderClient {
    /// Fills the caches for images about to be shown in views of `width` x `height` pixels shown
    /// as `fit`, at low priority: their index files, and the file of the rung each view needs,
    /// into the disk cache (or, without one, its picture into the memory cache). Loads of images
    /// on screen go first; a load of an image being prefetched shares its download. An image
    /// already being prefetched is not prefetched twice.
    public func prefetch(_ images: [ImageReference], width: Int, height: Int, fit: Ladder.Fit = .aspectFit) {
        let view = LadderLoad.View(width: width, height: height, fit: fit)
        for image in images {
            prefetches.start(image) { finished in
                Task {
                    await self.prefetch(image, for: view)
                    finished()
                }
            }
        }
    }

    /// Stops prefetching `images` (they scrolled away): what their downloads received is kept
    /// to resume from.
    public func cancelPrefetch(_ images: [ImageReference]) {
        for image in images { prefetches.cancel(image) }
    }

    /// Stops every prefetch.
    public func cancelAllPrefetching() { prefetches.cancelAll() }

    /// The images being prefetched now.
    public var prefetchingCount: Int { prefetches.count }

    private func prefetch(_ image: ImageReference, for view: LadderLoad.View) async {
        guard let (sha1, entry) = try? await catalog.entry(for: image, priority: .prefetchIndex) else { return }
        let load = LadderLoad(client: self, sha1: sha1, entry: entry, view: view)
        guard let step = load.steps().last else { return }
        if let disk = diskCache {
            if await disk.contains(step.diskName) { return }
        } else if let frame = memoryCache?.frame(sha1: sha1, file: step.file.sha256), step.isServed(by: frame) {
            return
        }
        let subscription = await downloads.subscribe(
            to: step.file, scanEnds: step.scanEnds, diskName: step.diskName, priority: .prefetch)
        for await update in subscription.updates {
            // The download stores the checked file in the disk cache itself.
            guard case .finished(.success(let data)) = update, diskCache == nil, let memoryCache else { continue }
            let decoder = configuration.decoder.makeDecoder(
                for: step.file, of: step.rung, width: step.shown.width, height: step.shown.height)
            if let picture = try? decoder.picture(from: data, scans: step.rung.scans, isComplete: true) {
                let frame = Frame(
                    picture: picture, stage: .whole, rung: step.rung, format: step.file.format, isFinal: false)
                memoryCache.store(frame, sha1: sha1, file: step.file.sha256, ladder: load.ladder)
            }
        }
        await downloads.unsubscribe(subscription)
    }
}

/// The prefetches a client runs, one per image.
final class PrefetchRegistry: @unchecked Sendable {
    // @unchecked: `tasks` and `nextID` are only touched under `lock`.
    private let lock = NSLock()
    private var tasks: [ImageReference: (id: UInt64, task: Task<Void, Never>)] = [:]
    private var nextID: UInt64 = 0

    var count: Int { lock.withLock { tasks.count } }

    /// Starts the task `make` makes for `image`, unless one runs; the task calls the closure it
    /// is given when it ends.
    func start(_ image: ImageReference, _ make: (@escaping @Sendable () -> Void) -> Task<Void, Never>) {
        lock.withLock {
            guard tasks[image] == nil else { return }
            nextID += 1
            let id = nextID
            tasks[image] = (id, make { [weak self] in self?.finished(image, id: id) })
        }
    }

    func cancel(_ image: ImageReference) {
        lock.withLock { tasks.removeValue(forKey: image) }?.task.cancel()
    }

    func cancelAll() {
        let all = lock.withLock {
            defer { tasks = [:] }
            return tasks.values.map(\.task)
        }
        for task in all { task.cancel() }
    }

    private func finished(_ image: ImageReference, id: UInt64) {
        lock.withLock {
            if tasks[image]?.id == id { tasks[image] = nil }
        }
    }
}
