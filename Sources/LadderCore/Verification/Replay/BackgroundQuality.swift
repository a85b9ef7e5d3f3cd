import Dispatch
import Synchronization

/// Measures SSIM against one reference on a background thread while the caller goes on
/// decoding, so that a replay's rendering and its measuring overlap on two cores. Pictures
/// equal to the reference are 1, and a picture equal to one already submitted is measured once.
final class BackgroundQuality: Sendable {
    let reference: [UInt8]
    let width: Int
    let height: Int
    private let queue = DispatchQueue(label: "ladder.replay.quality")
    private let group = DispatchGroup()
    private let values = Mutex<[Int: Double]>([:])
    /// Submitted pictures by index, and which earlier picture each repeats.
    private let submitted = Mutex<(pictures: [Int: [UInt8]], repeats: [Int: Int])>(([:], [:]))

    init(reference: [UInt8], width: Int, height: Int) {
        self.reference = reference
        self.width = width
        self.height = height
    }

    /// Queues `picture` (a plane of the reference's size) as number `index`.
    func submit(_ index: Int, _ picture: [UInt8]) {
        precondition(picture.count == reference.count, "planes of different sizes")
        if picture == reference {
            values.withLock { $0[index] = 1 }
            return
        }
        let earlier = submitted.withLock { state -> Int? in
            if let earlier = state.pictures.first(where: { $0.value == picture })?.key {
                state.repeats[index] = earlier
                return earlier
            }
            state.pictures[index] = picture
            return nil
        }
        guard earlier == nil else { return }
        queue.async(group: group) { [self] in
            let value = ImageQuality.ssim(picture, reference: reference, width: width, height: height)
            values.withLock { $0[index] = value }
        }
    }

    /// Waits for every measure; the SSIM of each submitted picture by index.
    func results() -> [Int: Double] {
        group.wait()
        var all = values.withLock { $0 }
        for (index, earlier) in submitted.withLock({ $0.repeats }) { all[index] = all[earlier] }
        return all
    }
}
