internal import CVips
import Foundation
import Synchronization

/// One block of memory a render worker keeps for its whole life, lent to the largest thing a
/// render holds at a time: the decoded picture, then (once the picture is released) the
/// coefficients of its baseline encode, which take as many bytes for 4:2:0 chroma.
///
/// Given back to malloc after every image, those two blocks leave holes that the next image's
/// blocks often cannot use (a one-time allocation lands between them, or the next picture is a
/// little larger), so the heap keeps growing; and mapping them afresh for every image costs a
/// page fault for every 4 KiB. Held here, they reuse the same pages image after image.
///
/// Off until `Imaging.reuseRenderMemory(upTo:)`; one lender at a time, and a request it cannot
/// serve (lent already, larger than its limit) gets nil, and the caller uses malloc as before.
final class RenderBuffer: @unchecked Sendable {
    // @unchecked: the pointer is only read or replaced behind `state`'s lock.
    private struct State {
        var base: UnsafeMutableRawPointer?
        var capacity = 0
        var limit = 0
        var lent = false
    }

    private let state = Mutex<State>(State())

    static let shared = RenderBuffer()

    /// Lets the buffer grow to `limit` bytes (0 turns it off for new loans).
    func setLimit(_ limit: Int) {
        state.withLock { $0.limit = limit }
    }

    /// Lends at least `bytes` bytes, growing the buffer when it is smaller; nil when it is lent
    /// already, or `bytes` is over the limit.
    func lend(atLeast bytes: Int) -> UnsafeMutableRawPointer? {
        state.withLock { state in
            guard !state.lent, bytes > 0, bytes <= state.limit else { return nil }
            if state.capacity < bytes {
                if let base = state.base { munmap(base, state.capacity) }
                state.base = nil
                state.capacity = 0
                // Rounded up to 64 KiB; mapped outside malloc's heap, kept until the process ends.
                let size = (bytes + 0xFFFF) & ~0xFFFF
                guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                    mapped != MAP_FAILED
                else { return nil }
                state.base = mapped
                state.capacity = size
            }
            state.lent = true
            return state.base
        }
    }

    /// Lends the whole buffer as it is, however large (nothing when it was never used).
    func lendAll() -> (base: UnsafeMutableRawPointer, capacity: Int)? {
        state.withLock { state in
            guard !state.lent, let base = state.base, state.limit > 0 else { return nil }
            state.lent = true
            return (base, state.capacity)
        }
    }

    /// Takes back what `lend(atLeast:)` or `lendAll()` lent.
    func giveBack() {
        state.withLock { $0.lent = false }
    }
}

extension Imaging {
    /// Keeps one buffer of at most `limit` bytes for the process's life, for the decoded picture
    /// of each render and then the coefficients the scan-script choice reads (`RenderBuffer`).
    /// For render workers, which render one source after another.
    package static func reuseRenderMemory(upTo limit: Int) {
        RenderBuffer.shared.setLimit(limit)
    }
}

extension Image {
    /// Renders the pixels into the process's render buffer when it is free and large enough
    /// (`Imaging.reuseRenderMemory(upTo:)`), else into memory of their own (`inMemory()`).
    /// The buffer is taken back when libvips lets go of the image.
    func inRenderMemory() throws(ImagingError) -> Image {
        let bytes = width * height * bands * Int(vips_format_sizeof(vips_image_get_format(pointer)))
        // Room for the coefficients of the picture's JPEG encode too, which come next: 2 bytes a
        // sample, the sides padded to whole 16-pixel MCUs, chroma at a quarter (4:2:0).
        let (paddedWidth, paddedHeight) = ((width + 15) / 16 * 16, (height + 15) / 16 * 16)
        let coefficients = paddedWidth * paddedHeight * (bands >= 3 ? 3 : 2)
        let buffer = RenderBuffer.shared
        guard let base = buffer.lend(atLeast: max(bytes, coefficients)) ?? buffer.lend(atLeast: bytes) else {
            return try inMemory()
        }
        guard
            let target = vips_image_new_from_memory(
                base, bytes, Int32(width), Int32(height), Int32(bands), vips_image_get_format(pointer))
        else {
            buffer.giveBack()
            throw ImagingError(operation: "decode", path: nil, reason: takeVipsError())
        }
        // libvips' last reference decides when the pixels are no longer read.
        let closed: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _ in
            RenderBuffer.shared.giveBack()
        }
        g_signal_connect_data(
            target, "postclose", unsafeBitCast(closed, to: GCallback.self), nil, nil, GConnectFlags(0))
        let image = Image(consuming: target)
        guard vips_image_write(pointer, target) == 0 else {
            throw ImagingError(operation: "decode", path: nil, reason: takeVipsError())
        }
        return image
    }
}
