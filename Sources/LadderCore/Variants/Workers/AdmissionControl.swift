import Foundation

/// Decides when a render may start: at most `slots` at once, and no more pixels in flight than
/// `pixelBudget`, except that a render may always start when nothing else runs. A 100-megapixel
/// source therefore runs alone, instead of several of them multiplying memory by the number of
/// jobs, while small sources run side by side.
public final class AdmissionControl: @unchecked Sendable {
    // @unchecked: all state is guarded by `condition`.

    private let condition = NSCondition()
    private let slots: Int
    private let pixelBudget: Int
    private var running = 0
    private var pixelsInFlight = 0

    public init(slots: Int, pixelBudget: Int) {
        self.slots = max(1, slots)
        self.pixelBudget = max(1, pixelBudget)
    }

    /// Waits until a render of `pixels` pixels may start, and counts it.
    public func enter(pixels: Int) {
        condition.lock()
        while running >= slots || (running > 0 && pixelsInFlight + pixels > pixelBudget) {
            condition.wait()
        }
        running += 1
        pixelsInFlight += pixels
        condition.unlock()
    }

    /// Counts a render of `pixels` pixels as finished.
    public func leave(pixels: Int) {
        condition.lock()
        running -= 1
        pixelsInFlight -= pixels
        condition.broadcast()
        condition.unlock()
    }
}
