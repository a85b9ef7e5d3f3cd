import Foundation
import LadderImaging
import Synchronization

/// Runs numbered work items on a fixed number of threads, each thread taking the next item
/// when it is done with the last. Blocking C work (decoding, encoding, writing) runs here
/// rather than on Swift's cooperative thread pool.
enum ParallelRunner {
    /// Calls `body` once for every index in `0..<count`, on `width` threads, and returns when all
    /// calls have returned. `body` returns false to stop the remaining items from starting.
    static func run(count: Int, width: Int, _ body: @escaping @Sendable (Int) -> Bool) {
        guard count > 0 else { return }
        let threads = max(1, min(width, count))
        let next = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        let group = DispatchGroup()
        let work: @Sendable () -> Void = {
            while !stopped.load(ordering: .relaxed) {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < count else { break }
                if !body(index) { stopped.store(true, ordering: .relaxed) }
            }
            // Threads that called libvips release its per-thread buffers before they end.
            Imaging.threadWillExit()
            group.leave()
        }
        for _ in 0..<threads {
            group.enter()
            let thread = Thread(block: work)
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
    }
}
