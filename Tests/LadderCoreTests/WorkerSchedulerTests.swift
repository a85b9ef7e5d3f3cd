import Foundation
import LadderCore
import Synchronization
import Testing

/// The worker pool's scheduler admits renders by pixel count as well as by number, so that big
/// sources do not multiply memory by the number of workers.
@Suite("Worker pool scheduler")
struct WorkerSchedulerTests {
    /// Starts `admit(pixels:)` on another thread; the flag turns true once it is admitted.
    static func enterInBackground(_ control: WorkerPool.Scheduler<Never>, pixels: Int) -> Flag {
        let admitted = Flag()
        Thread.detachNewThread {
            _ = control.admit(pixels: pixels)
            admitted.set()
        }
        return admitted
    }

    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// Expects the render behind `flag` to wait while others run, and to start soon after `release`.
    static func expectHeldBack(_ flag: Flag, _ comment: Comment, release: () -> Void) {
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!flag.isSet, comment)
        release()
        #expect(Self.eventually { flag.isSet })
    }

    @Test("a second big source waits for the first even when a job slot is free")

    func bigSourcesRunAlone() {
        let control = WorkerPool.Scheduler<Never>(slots: 2, pixelBudget: 100_000_000)
        _ = control.admit(pixels: 80_000_000)
        let second = Self.enterInBackground(control, pixels: 80_000_000)
        Self.expectHeldBack(second, "admitted beside the first") { control.leave(pixels: 80_000_000) }
    }

    @Test("small sources run side by side up to the number of jobs")
    func smallSourcesShare() {
        let control = WorkerPool.Scheduler<Never>(slots: 2, pixelBudget: 100_000_000)
        _ = control.admit(pixels: 12_000_000)
        let second = Self.enterInBackground(control, pixels: 12_000_000)
        #expect(Self.eventually { second.isSet })
        let third = Self.enterInBackground(control, pixels: 1_000)
        Self.expectHeldBack(third, "more renders than jobs") { control.leave(pixels: 12_000_000) }
    }

    @Test("a source above the budget still runs, alone")
    func oversizedRunsAlone() {
        let control = WorkerPool.Scheduler<Never>(slots: 2, pixelBudget: 10)
        let first = Self.enterInBackground(control, pixels: 1_000)
        #expect(Self.eventually { first.isSet })
    }
}

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let state = Atomic<Bool>(false)
    var isSet: Bool { state.load(ordering: .sequentiallyConsistent) }
    func set() { state.store(true, ordering: .sequentiallyConsistent) }
}
