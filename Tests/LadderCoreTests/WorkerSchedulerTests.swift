import Foundation
import LadderCore
import Synchronization
import Testing

/// The worker pool's scheduler admits renders by pixel count as well as by number, so that big
/// sources do not multiply memory by the number of workers. Ordered by events (a render is
/// waiting, a render is admitted), never by how long a thread takes to get there.
@Suite("Worker pool scheduler")
struct WorkerSchedulerTests {
    /// Starts `admit(pixels:)` on another thread; the flag is raised once it is admitted.
    static func enterInBackground(_ control: WorkerPool.Scheduler<Never>, pixels: Int) -> Flag {
        let admitted = Flag()
        Thread.detachNewThread {
            _ = control.admit(pixels: pixels)
            admitted.set()
        }
        return admitted
    }

    /// Waits until `condition` holds; false only if it never does within a minute (a hang).
    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let limit = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < limit else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// Expects the render behind `flag` to be waiting, not admitted, while others run, and to be
    /// admitted once `release` makes room.
    static func expectHeldBack(
        _ flag: Flag, by control: WorkerPool.Scheduler<Never>, _ comment: Comment, release: () -> Void
    ) {
        #expect(Self.waitUntil { control.waitingRenders == 1 }, "the render reaches the scheduler")
        #expect(!flag.isSet, comment)
        release()
        #expect(Self.waitUntil { flag.isSet })
        #expect(control.waitingRenders == 0)
    }

    @Test("a second big source waits for the first even when a job slot is free")
    func bigSourcesRunAlone() {
        let control = WorkerPool.Scheduler<Never>(slots: 2, pixelBudget: 100_000_000)
        _ = control.admit(pixels: 80_000_000)
        let second = Self.enterInBackground(control, pixels: 80_000_000)
        Self.expectHeldBack(second, by: control, "admitted beside the first") { control.leave(pixels: 80_000_000) }
    }

    @Test("small sources run side by side up to the number of jobs")
    func smallSourcesShare() {
        let control = WorkerPool.Scheduler<Never>(slots: 2, pixelBudget: 100_000_000)
        _ = control.admit(pixels: 12_000_000)
        let second = Self.enterInBackground(control, pixels: 12_000_000)
        #expect(Self.waitUntil { second.isSet })
        #expect(control.waitingRenders == 0, "never held back")
        let third = Self.enterInBackground(control, pixels: 1_000)
        Self.expectHeldBack(third, by: control, "more renders than jobs") { control.leave(pixels: 12_000_000) }
    }

    @Test("a source above the budget still runs, alone")
    func oversizedRunsAlone() {
        let control = WorkerPool.Scheduler<Never>(slots: 2, pixelBudget: 10)
        let first = Self.enterInBackground(control, pixels: 1_000)
        #expect(Self.waitUntil { first.isSet })
    }
}

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let state = Atomic<Bool>(false)
    var isSet: Bool { state.load(ordering: .sequentiallyConsistent) }
    func set() { state.store(true, ordering: .sequentiallyConsistent) }
}
