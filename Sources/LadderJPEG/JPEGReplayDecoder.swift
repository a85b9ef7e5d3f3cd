internal import CLadderJPEG

/// libjpeg-turbo in buffered-image mode, fed a JPEG a few bytes at a time as a browser or an
/// incremental image source is: after each step it can render the picture as it stands.
///
/// The file's bytes live in one buffer of the file's length, filled as they arrive (`append`),
/// of which libjpeg sees the first `advance(to:)` or `expose(_:)` bytes: it suspends when it
/// needs bytes it cannot see, and carries on from there when more are visible, so nothing is
/// decoded twice.
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
    /// The bytes that have arrived, at the start of `bytes`.
    package private(set) var received = 0
    /// The picture being painted (`startPainting(scan:)`), rows top to bottom.
    private var canvas: [UInt8] = []
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
    package convenience init(
        _ bytes: [UInt8], maximumScans: Int, lumaOnly: Bool = false, rgb: Bool = false, scaleEighths: Int = 8
    )
        throws(ImagingError)
    {
        try self.init(
            length: bytes.count, maximumScans: maximumScans, lumaOnly: lumaOnly, rgb: rgb, scaleEighths: scaleEighths)
        bytes.withUnsafeBytes { append($0) }
    }

    /// Prepares to replay a file of `length` bytes that arrive later (`append`), with the options
    /// of `init(_:maximumScans:lumaOnly:rgb:scaleEighths:)`. With a `maximumMemory` (bytes),
    /// libjpeg's buffers are bounded, so that a header that claims a huge picture fails at once.
    package init(
        length: Int, maximumScans: Int, lumaOnly: Bool = false, rgb: Bool = false, scaleEighths: Int = 8,
        maximumMemory: Int = 0
    ) throws(ImagingError) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, length))
        guard
            let handle = ladder_replay_new(
                buffer.baseAddress!, length, Int32(maximumScans),
                DecodedPixels.output(lumaOnly: lumaOnly, rgb: rgb),
                Int32(min(8, max(1, scaleEighths))), maximumMemory)
        else {
            buffer.deallocate()
            throw ImagingError(operation: "start a replay", path: nil, reason: "out of memory")
        }
        self.bytes = UnsafeMutableBufferPointer(start: buffer.baseAddress, count: length)
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

    /// Adds bytes that arrived after those received so far (beyond the file's length, they are
    /// dropped); libjpeg sees them once they are made visible.
    package func append(_ more: UnsafeRawBufferPointer) {
        let count = min(more.count, bytes.count - received)
        guard count > 0, let source = more.baseAddress else { return }
        UnsafeMutableRawPointer(bytes.baseAddress! + received).copyMemory(from: source, byteCount: count)
        received += count
    }

    /// Makes the first `available` bytes visible without letting libjpeg read them: a paint
    /// waiting for bytes (`paintRows()` returned nil) reads what it needs itself.
    package func expose(_ available: Int) {
        ladder_replay_expose(handle, min(available, received))
    }

    /// Starts painting the picture as it stands after scan `scan`. libjpeg decides block
    /// smoothing now and keeps that for the whole paint: started once the scan is complete and
    /// before the next scan's header is visible, the picture is the one a decoder given only
    /// those scans (and an end of image) shows, djpeg for one.
    package func startPainting(scan: Int) throws(ImagingError) {
        guard state.headerReady else {
            throw ImagingError(operation: "paint", path: nil, reason: "the header has not arrived")
        }
        var message = [CChar](repeating: 0, count: 256)
        guard ladder_replay_start_paint(handle, Int32(scan), &message, message.count) == 0 else {
            throw ImagingError(operation: "paint scan \(scan)", path: nil, reason: cString(message))
        }
        canvas = [UInt8](repeating: 0, count: state.width * state.height * state.components)
    }

    /// Paints what it can of the picture `startPainting(scan:)` started: the whole picture, or
    /// nil when libjpeg needs bytes that are not visible yet (after a DC scan, its last two block
    /// rows wait for the next scan's header or the end of the image; expose more and call again).
    package func paintRows() throws(ImagingError) -> DecodedPixels? {
        guard !canvas.isEmpty else {
            throw ImagingError(operation: "paint", path: nil, reason: "no paint was started")
        }
        var message = [CChar](repeating: 0, count: 256)
        let status = canvas.withUnsafeMutableBufferPointer { pixels in
            ladder_replay_paint_rows(handle, pixels.baseAddress!, &message, message.count)
        }
        guard status >= 0 else {
            throw ImagingError(operation: "paint", path: nil, reason: cString(message))
        }
        guard status == 1 else { return nil }
        let pixels = DecodedPixels(
            width: state.width, height: state.height, components: state.components, colorModel: state.colorModel,
            samples: canvas)
        canvas = []
        return pixels
    }

    /// Makes the first `available` bytes visible and lets libjpeg absorb what it can.
    @discardableResult
    package func advance(to available: Int) throws(ImagingError) -> State {
        var raw = ladder_replay_state()
        var message = [CChar](repeating: 0, count: 256)
        let status = ladder_replay_advance(handle, min(available, received), &raw, &message, message.count)
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

/// Paints each scan of a file as a browser paints it, as the bytes arrive: once the scan's data
/// and the two bytes of the marker after it are there, libjpeg knows the scan is over and has not
/// read the next scan's header, and paints (`startPainting(scan:)`). Had it read that header
/// first, it would count the coefficients the next scan brings as known and no longer smooth
/// them: a DC-only picture would show its blocks, where browsers (and djpeg given those bytes)
/// show it smoothed. After a DC scan the last two block rows wait for the next scan's header;
/// the paint finishes once it is visible.
package struct ScanPainter {
    package let decoder: JPEGReplayDecoder
    /// The scan whose paint waits for bytes.
    package private(set) var painting: Int?
    /// The scans painted whole, by 1-based number.
    package var pictures: [Int: DecodedPixels] = [:]

    package init(_ decoder: JPEGReplayDecoder) {
        self.decoder = decoder
    }

    /// With the first `available` bytes visible: finishes the paint that waits for bytes, then,
    /// when `scan` is given and its data has just ended there (`scanEnd` + 2), starts its paint.
    /// A scan that is not complete there, or whose next header libjpeg already read, is not
    /// painted (`render(scan:)` shows it as it stands).
    package mutating func advance(to available: Int, painting scan: Int? = nil) throws(ImagingError) {
        if let waiting = painting {
            decoder.expose(available)
            guard let pixels = try decoder.paintRows() else { return }
            pictures[waiting] = pixels
            painting = nil
        }
        guard let scan else { return }
        let state = try decoder.advance(to: available)
        guard state.headerReady, state.scansCompleted >= scan, state.inputScan == scan, !state.inputComplete else {
            return
        }
        try decoder.startPainting(scan: scan)
        if let pixels = try decoder.paintRows() {
            pictures[scan] = pixels
        } else {
            painting = scan
        }
    }
}
