import Dispatch
import LadderImaging
import Synchronization

/// Decodes a replay's final picture and measures SSIM against it on a background thread while
/// the caller goes on rendering scans, so that a replay's rendering, its one-shot decode and its
/// measuring overlap on two cores. The pictures waiting when the thread gets to them are measured
/// in one pass, which filters the final picture once for all of them (each value is the same as
/// measured alone). Pictures equal to the final one are 1, and a picture equal to one already
/// measured is measured once.
final class BackgroundQuality: Sendable {
    private let queue = DispatchQueue(label: "ladder.replay.quality")
    private let group = DispatchGroup()
    /// The final picture and its luma plane, once decoded; nil when it could not be.
    private let final = Mutex<(pixels: DecodedPixels, luma: [UInt8])?>(nil)
    private let values = Mutex<[Int: Double]>([:])
    /// Pictures submitted and not yet measured, by index.
    private let waiting = Mutex<[(index: Int, picture: [UInt8])]>([])
    /// Measured pictures by index, and which earlier picture each repeats; used on the queue only.
    private let measured = Mutex<(pictures: [Int: [UInt8]], repeats: [Int: Int])>(([:], [:]))

    /// Starts decoding the final picture with `decode`.
    init(final decode: @escaping @Sendable () -> DecodedPixels?) {
        queue.async(group: group) { [self] in
            guard let picture = decode() else { return }
            let luma = picture.luma()
            final.withLock { $0 = (picture, luma) }
        }
    }

    /// Queues `picture` (a luma plane) as number `index`; it is measured once the final picture
    /// is decoded, and left out when that failed or the sizes differ.
    func submit(_ index: Int, _ picture: [UInt8]) {
        waiting.withLock { $0.append((index, picture)) }
        queue.async(group: group) { [self] in measureWaiting() }
    }

    /// Measures every picture waiting, in one pass.
    private func measureWaiting() {
        let batch = waiting.withLock { pictures in
            defer { pictures.removeAll() }
            return pictures
        }
        guard !batch.isEmpty, let (pixels, reference) = final.withLock({ $0 }) else { return }
        var fresh: [(index: Int, picture: [UInt8])] = []
        for (index, picture) in batch where picture.count == reference.count {
            if picture == reference {
                values.withLock { $0[index] = 1 }
                continue
            }
            let earlier = measured.withLock { state -> Int? in
                if let earlier = state.pictures.first(where: { $0.value == picture })?.key {
                    state.repeats[index] = earlier
                    return earlier
                }
                state.pictures[index] = picture
                return nil
            }
            if earlier == nil { fresh.append((index, picture)) }
        }
        guard !fresh.isEmpty else { return }
        let ssims = ImageQuality.ssim(
            fresh.map(\.picture), reference: reference, width: pixels.width, height: pixels.height)
        values.withLock { values in
            for (picture, ssim) in zip(fresh, ssims) { values[picture.index] = ssim }
        }
    }

    /// Waits for the decode and every measure: the final picture and its luma plane, and the
    /// SSIM of each measured picture by index.
    func results() -> (final: DecodedPixels?, luma: [UInt8]?, ssims: [Int: Double]) {
        group.wait()
        var all = values.withLock { $0 }
        for (index, earlier) in measured.withLock({ $0.repeats }) { all[index] = all[earlier] }
        let decoded = final.withLock { $0 }
        return (decoded?.pixels, decoded?.luma, all)
    }
}
