internal import CLadder

/// libjpeg-turbo in buffered-image mode, fed a JPEG a few bytes at a time as a browser or an
/// incremental image source is: after each step it can render the picture as it stands.
///
/// Not `Sendable`: one replay belongs to the function that runs it.
package final class JPEGReplayDecoder {
    /// Where the decoder stands after `advance(to:)`. `width` and `height` are those of the pictures
    /// it renders.
    package struct State: Sendable, Equatable {
        package var headerReady: Bool
        package var width: Int
        package var height: Int
        package var components: Int
        package var colorModel: DecodedPixels.ColorModel
        package var isProgressive: Bool
        /// Scans whose data libjpeg has wholly absorbed.
        package var scansCompleted: Int
        /// The scan libjpeg is reading (1-based; 0 before the first).
        package var inputScan: Int
        /// True once every component has its DC coefficients: the first moment a browser paints.
        package var allDCReceived: Bool
        /// True once the end-of-image marker has been read.
        package var inputComplete: Bool
        /// Corrupt-data warnings libjpeg raised so far.
        package var warnings: Int
    }

    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let handle: OpaquePointer
    package private(set) var state = State(
        headerReady: false, width: 0, height: 0, components: 0, colorModel: .rgb, isProgressive: false,
        scansCompleted: 0, inputScan: 0,
        allDCReceived: false, inputComplete: false, warnings: 0)

    /// Prepares to replay `bytes`; a file that starts more than `maximumScans` scans is refused
    /// when it does, before those scans are decoded. With `lumaOnly`, a YCbCr file renders as
    /// its Y plane alone (grayscale pixels), which costs libjpeg about half as much; with `rgb`,
    /// as RGB converted by libjpeg (its SIMD color converter), for showing; other color spaces
    /// render whole. With `scaleEighths` below 8, pictures render at that many eighths of the
    /// file's size (libjpeg scales in its IDCT, rounding sizes up), for showing rather than
    /// measuring.
    package init(
        _ bytes: [UInt8], maximumScans: Int, lumaOnly: Bool = false, rgb: Bool = false, scaleEighths: Int = 8
    )
        throws(ImagingError)
    {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = copy.initialize(from: bytes)
        guard
            let handle = ladder_replay_new(
                copy.baseAddress!, bytes.count, Int32(maximumScans),
                DecodedPixels.output(lumaOnly: lumaOnly, rgb: rgb),
                Int32(min(8, max(1, scaleEighths))))
        else {
            copy.deallocate()
            throw ImagingError(operation: "start a replay", path: nil, reason: "out of memory")
        }
        self.bytes = UnsafeMutableBufferPointer(start: copy.baseAddress, count: bytes.count)
        self.handle = handle
    }

    /// The largest scale in eighths (1 to 8) at which libjpeg renders a `width` x `height`
    /// picture with its long side at most `side` pixels; 1 when even an eighth is larger.
    package static func scaleEighths(fitting side: Int, width: Int, height: Int) -> Int {
        let long = max(width, height)
        return (1...8).last { (long * $0 + 7) / 8 <= side } ?? 1
    }

    deinit {
        ladder_replay_free(handle)
        bytes.deallocate()
    }

    /// The file's length.
    package var length: Int { bytes.count }

    /// Makes the first `available` bytes visible and lets libjpeg absorb what it can.
    @discardableResult
    package func advance(to available: Int) throws(ImagingError) -> State {
        var raw = ladder_replay_state()
        var message = [CChar](repeating: 0, count: 256)
        let status = ladder_replay_advance(handle, available, &raw, &message, message.count)
        state = State(
            headerReady: raw.header_ready != 0, width: Int(raw.width), height: Int(raw.height),
            components: Int(raw.components),
            colorModel: DecodedPixels.ColorModel(libjpeg: raw.color_space, components: Int(raw.components)),
            isProgressive: raw.progressive != 0, scansCompleted: Int(raw.scans_completed),
            inputScan: Int(raw.input_scan),
            allDCReceived: raw.all_dc_received != 0, inputComplete: raw.input_complete != 0, warnings: raw.warnings)
        guard status == 0 else {
            throw ImagingError(operation: "decode progressively", path: nil, reason: cString(message))
        }
        return state
    }

    /// The picture as it stands once scan `scan` is complete, with block smoothing as browsers do.
    /// libjpeg must have moved past the scan (`inputScan > scan`, or the input is complete).
    package func render(scan: Int) throws(ImagingError) -> DecodedPixels {
        guard state.headerReady else {
            throw ImagingError(operation: "render", path: nil, reason: "the header has not arrived")
        }
        var message = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        // libjpeg writes every sample; nothing is read before it has (on failure, nothing is).
        let samples = [UInt8](unsafeUninitializedCapacity: state.width * state.height * state.components) {
            buffer, count in
            status = ladder_replay_render(handle, Int32(scan), buffer.baseAddress!, &message, message.count)
            count = buffer.count
        }
        guard status == 0 else {
            throw ImagingError(operation: "render scan \(scan)", path: nil, reason: cString(message))
        }
        return DecodedPixels(
            width: state.width, height: state.height, components: state.components, colorModel: state.colorModel,
            samples: samples)
    }

    /// The text of libjpeg's last warning ("Corrupt JPEG data: ..."), or "".
    package var lastWarning: String { String(cString: ladder_replay_last_warning(handle)) }
}
