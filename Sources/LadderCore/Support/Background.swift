import Foundation
import Synchronization

/// A value made on a thread of its own, started at once, for work that must overlap with what
/// the caller does next (a build's snapshot while it writes the manifest), or made on a serial
/// queue after the work queued there before it. `value` waits for it. The work must not write
/// what the caller may write: nothing joins it when `value` is never read.
final class Background<Value: Sendable>: Sendable {
    private let made = DispatchSemaphore(value: 0)
    private let result = Mutex<Value?>(nil)

    /// Makes the value on `queue`, or on a thread of its own when `queue` is nil.
    init(on queue: DispatchQueue? = nil, _ make: @escaping @Sendable () -> Value) {
        let work: @Sendable () -> Void = {
            let value = make()
            self.result.withLock { $0 = value }
            self.made.signal()
        }
        if let queue { queue.async(execute: work) } else { Thread(block: work).start() }
    }

    /// The value, once made (each read after the first returns at once).
    var value: Value {
        made.wait()
        defer { made.signal() }
        return result.withLock { $0! }
    }
}
