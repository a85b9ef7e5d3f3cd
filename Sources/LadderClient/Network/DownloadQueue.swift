import Foundation

/// Who goes first when downloads wait for a slot: what a shown image needs before what a
/// prefetched one does, and an index file (the placeholder comes with it) before variant bytes.
enum DownloadPriority: Int, Comparable, Sendable {
    /// A variant file of an image being prefetched.
    case prefetch
    /// The index file an image being prefetched needs.
    case prefetchIndex
    /// A variant file of an image on screen.
    case visible
    /// The index file an image on screen needs: its placeholder waits for it.
    case visibleIndex

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The priority of an index file fetched for a download of this priority.
    var forIndex: Self { self >= .visible ? .visibleIndex : .prefetchIndex }
}

/// Limits how many downloads run at once across every image a client loads. Places are
/// reserved (`reserve(_:)`, at once, so that the order of reservations is the order of the
/// calls) and slots go to the waiting place of highest priority, the earliest reserved first
/// among equals, whichever download task asks first; so a load that reserves its smaller rungs
/// first has them served first. A place whose task is cancelled, or that is not needed
/// (`forfeit(_:)`), is given up; a waiting place may be raised to a higher priority
/// (`raise(_:to:)`).
final class DownloadQueue: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    let limit: Int
    private let lock = NSLock()
    private var running = 0
    /// Reserved places not yet given a slot, with their priority.
    private var waiting: [UInt64: DownloadPriority] = [:]
    /// The tasks already waiting for their place's slot.
    private var continuations: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// Places given a slot before their task asked for it.
    private var granted: Set<UInt64> = []
    private var nextID: UInt64 = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Reserves a place at `priority`, after every place reserved before.
    func reserve(_ priority: DownloadPriority) -> UInt64 {
        let (place, resumed) = lock.withLock {
            nextID += 1
            waiting[nextID] = priority
            return (nextID, dispatch())
        }
        for continuation in resumed { continuation.resume() }
        return place
    }

    /// Raises a waiting place to `priority`, when that is higher than its own.
    func raise(_ place: UInt64, to priority: DownloadPriority) {
        lock.withLock {
            if let current = waiting[place], current < priority { waiting[place] = priority }
        }
    }

    /// Waits until `place` has a slot; throws `CancellationError` when the task is cancelled
    /// first or the place was given up.
    func acquire(_ place: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: Bool? = lock.withLock {
                    if granted.remove(place) != nil { return true }
                    guard waiting[place] != nil else { return false }
                    continuations[place] = continuation
                    return nil
                }
                switch ready {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            forfeit(place)
        }
    }

    /// Frees a slot, handing it to the next place.
    func release() {
        let resumed = lock.withLock {
            running -= 1
            return dispatch()
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Gives up `place`: out of the queue (its waiting task throws `CancellationError`), or,
    /// when it was given a slot its task has not taken, the slot goes to the next place.
    func forfeit(_ place: UInt64) {
        let (cancelled, resumed): (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) =
            lock.withLock {
                if waiting.removeValue(forKey: place) != nil {
                    return (continuations.removeValue(forKey: place), [])
                }
                guard granted.remove(place) != nil else { return (nil, []) }
                running -= 1
                return (nil, dispatch())
            }
        cancelled?.resume(throwing: CancellationError())
        for continuation in resumed { continuation.resume() }
    }

    /// Gives free slots to the waiting places, highest priority first, then the earliest
    /// reserved; returns the waiting tasks to resume (outside the lock). Called under the lock.
    private func dispatch() -> [CheckedContinuation<Void, any Error>] {
        var resumed: [CheckedContinuation<Void, any Error>] = []
        while running < limit {
            guard let place = waiting.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key else { break }
            waiting[place] = nil
            running += 1
            if let continuation = continuations.removeValue(forKey: place) {
                resumed.append(continuation)
            } else {
                granted.insert(place)
            }
        }
        return resumed
    }
}
