import Foundation

/// Limits how many downloads run at once across every image a client loads. Places are
/// reserved in order (`reserve(_:)`) and slots go to them in that order, whichever download
/// task asks first, so a load that queues its smaller rungs first has them served first; a
/// place whose task is cancelled, or that is not needed (`forfeit(_:)`), is given up.
actor DownloadLimiter {
    let limit: Int
    private var running = 0
    /// Reserved places not yet given a slot, in the order they are served.
    private var queue: [UInt64] = []
    /// The tasks already waiting for their place's slot.
    private var waiting: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// Places given a slot before their task asked for it.
    private var granted: Set<UInt64> = []
    private var nextID: UInt64 = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Reserves `count` places at the end of the queue, in order.
    func reserve(_ count: Int) -> [UInt64] {
        let places = (0..<count).map { _ in
            nextID += 1
            return nextID
        }
        queue.append(contentsOf: places)
        dispatch()
        return places
    }

    /// Waits for a free slot at the end of the queue.
    func acquire() async throws {
        try await acquire(reserve(1)[0])
    }

    /// Waits until `place` has a slot; throws `CancellationError` when the task is cancelled
    /// first or the place was given up.
    func acquire(_ place: UInt64) async throws {
        if Task.isCancelled {
            forfeit(place)
            throw CancellationError()
        }
        if granted.remove(place) != nil { return }
        guard queue.contains(place) else { throw CancellationError() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiting[place] = continuation
            }
        } onCancel: {
            Task { await self.forfeit(place) }
        }
    }

    /// Frees a slot, handing it to the next place in the queue.
    func release() {
        running -= 1
        dispatch()
    }

    /// Gives up `place`: out of the queue (its waiting task throws `CancellationError`), or,
    /// when it was given a slot its task has not taken, the slot goes to the next place.
    func forfeit(_ place: UInt64) {
        if let index = queue.firstIndex(of: place) {
            queue.remove(at: index)
            waiting.removeValue(forKey: place)?.resume(throwing: CancellationError())
        } else if granted.remove(place) != nil {
            release()
        }
    }

    private func dispatch() {
        while running < limit, !queue.isEmpty {
            let place = queue.removeFirst()
            running += 1
            if let continuation = waiting.removeValue(forKey: place) {
                continuation.resume()
            } else {
                granted.insert(place)
            }
        }
    }
}
