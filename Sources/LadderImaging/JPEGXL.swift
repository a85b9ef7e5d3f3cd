internal import CJXL
import Foundation

/// JPEG XL through libjxl, whose API is plain C and is called from here directly: the lossless
/// recompression of a JPEG file (its own DCT coefficients, recoded, with the data to rebuild the
/// very same file), and the decoders that check such a file. libvips' JPEG XL saver encodes
/// pixels, and its loader is marked untrusted, so neither is used.
///
/// Decoding reads untrusted files: the declared size is checked against the caller's limits
/// before any pixel is decoded, and every allocation libjxl makes is counted against a memory
/// limit (a `JxlMemoryManager` that refuses what would pass it).
package enum JPEGXL {
    /// libjxl's version, "0.7.0".
    package static var version: String {
        let number = Int(JxlEncoderVersion())
        return "\(number / 1_000_000).\(number / 1000 % 1000).\(number % 1000)"
    }

    /// What a decode may allocate and produce.
    package struct Limits: Sendable {
        /// Width times height.
        package var maxPixels: Int
        /// Width or height.
        package var maxSide: Int
        /// Everything libjxl allocates at once.
        package var maxMemoryBytes: Int
        /// The length of a rebuilt JPEG file.
        package var maxOutputBytes: Int

        package init(maxPixels: Int, maxSide: Int, maxMemoryBytes: Int, maxOutputBytes: Int) {
            self.maxPixels = maxPixels
            self.maxSide = maxSide
            self.maxMemoryBytes = maxMemoryBytes
            self.maxOutputBytes = maxOutputBytes
        }
    }

    /// Recompresses the JPEG file `jpeg` losslessly (JxlEncoderAddJPEGFrame, with
    /// JxlEncoderStoreJPEGMetadata so that the file rebuilds the JPEG byte for byte), at libjxl's
    /// `effort` (1...9), in one thread.
    package static func recompressing(jpeg: [UInt8], effort: Int) throws(ImagingError) -> [UInt8] {
        func failure(_ reason: String) -> ImagingError {
            ImagingError(operation: "recompress as JPEG XL", path: nil, reason: reason)
        }
        guard let encoder = JxlEncoderCreate(nil) else { throw failure("libjxl could not start an encoder") }
        defer { JxlEncoderDestroy(encoder) }
        func why() -> String {
            switch JxlEncoderGetError(encoder) {
            case JXL_ENC_ERR_JBRD: "the JPEG cannot be reconstructed from a JPEG XL file (libjxl: JXL_ENC_ERR_JBRD)"
            case JXL_ENC_ERR_BAD_INPUT: "libjxl cannot read the JPEG (JXL_ENC_ERR_BAD_INPUT)"
            case JXL_ENC_ERR_OOM: "libjxl ran out of memory"
            case JXL_ENC_ERR_NOT_SUPPORTED: "libjxl does not support this JPEG (JXL_ENC_ERR_NOT_SUPPORTED)"
            default: "libjxl failed (error \(JxlEncoderGetError(encoder).rawValue))"
            }
        }
        guard JxlEncoderUseContainer(encoder, 1) == JXL_ENC_SUCCESS,
            JxlEncoderStoreJPEGMetadata(encoder, 1) == JXL_ENC_SUCCESS,
            let settings = JxlEncoderFrameSettingsCreate(encoder, nil),
            JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)) == JXL_ENC_SUCCESS
        else { throw failure(why()) }
        let added = jpeg.withUnsafeBufferPointer { JxlEncoderAddJPEGFrame(settings, $0.baseAddress, $0.count) }
        guard added == JXL_ENC_SUCCESS else { throw failure(why()) }
        JxlEncoderCloseInput(encoder)

        var output = [UInt8](repeating: 0, count: max(4096, jpeg.count))
        var used = 0
        while true {
            let (status, written) = output.withUnsafeMutableBufferPointer { buffer -> (JxlEncoderStatus, Int) in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + used
                var available = buffer.count - used
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                return (status, buffer.count - used - available)
            }
            used += written
            switch status {
            case JXL_ENC_SUCCESS:
                return Array(output[..<used])
            case JXL_ENC_NEED_MORE_OUTPUT:
                output += [UInt8](repeating: 0, count: output.count)
            default:
                throw failure(why())
            }
        }
    }

    /// The JPEG file that `jxl`, a recompressed JPEG, rebuilds; and the size its header declares,
    /// which must be within `limits` before anything is decoded. A JPEG XL file without JPEG
    /// reconstruction data (one encoded from pixels) is refused.
    package static func reconstructedJPEG(
        from jxl: [UInt8], limits: Limits
    ) throws(ImagingError) -> (jpeg: [UInt8], size: PixelSize) {
        let decoded = try decode(jxl, limits: limits, operation: "rebuild the JPEG from JPEG XL", wantsJPEG: true)
        return (decoded.jpeg, decoded.size)
    }

    /// Decodes every pixel of `jxl` (8-bit, its own color channels) under `limits`, as a viewer
    /// would; returns its size. Damage anywhere in the file is an error.
    package static func decodedSize(of jxl: [UInt8], limits: Limits) throws(ImagingError) -> PixelSize {
        try decode(jxl, limits: limits, operation: "decode JPEG XL", wantsJPEG: false).size
    }

    // MARK: - Decoding

    /// Runs libjxl's decoder over `jxl`: with `wantsJPEG`, asks for the JPEG reconstruction and
    /// returns it; otherwise decodes the pixels into a buffer it then drops.
    private static func decode(
        _ jxl: [UInt8], limits: Limits, operation: String, wantsJPEG: Bool
    ) throws(ImagingError) -> (size: PixelSize, jpeg: [UInt8]) {
        func failure(_ reason: String) -> ImagingError { ImagingError(operation: operation, path: nil, reason: reason) }
        let budget = MemoryBudget(limit: limits.maxMemoryBytes)
        var manager = budget.manager
        guard let decoder = JxlDecoderCreate(&manager) else { throw failure("libjxl could not start a decoder") }
        defer { JxlDecoderDestroy(decoder) }
        var events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        if wantsJPEG { events |= JXL_DEC_JPEG_RECONSTRUCTION.rawValue }
        guard JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS else {
            throw failure("libjxl refused the decoder's settings")
        }
        // Buffers libjxl writes into between calls must not move: they are allocated here.
        var output = OutputBuffer()
        defer { output.release() }
        var size = PixelSize(width: 0, height: 0)
        let outcome: ImagingError? = jxl.withUnsafeBufferPointer { input in
            guard let base = input.baseAddress, input.count > 0 else { return failure("the file is empty") }
            guard JxlDecoderSetInput(decoder, base, input.count) == JXL_DEC_SUCCESS else {
                return failure("libjxl refused the input")
            }
            JxlDecoderCloseInput(decoder)
            var reconstructing = false
            while true {
                let status = JxlDecoderProcessInput(decoder)
                switch status {
                case JXL_DEC_SUCCESS:
                    if wantsJPEG && !reconstructing {
                        return failure("the file holds no JPEG reconstruction data (it was not made from a JPEG)")
                    }
                    return nil
                case JXL_DEC_ERROR:
                    return failure(
                        budget.refused
                            ? "over the decoder memory limit of \(limits.maxMemoryBytes >> 20) MiB"
                            : "libjxl cannot decode the file (damaged, or not JPEG XL)")
                case JXL_DEC_NEED_MORE_INPUT:
                    return failure("the file ends early (truncated)")
                case JXL_DEC_BASIC_INFO:
                    var info = JxlBasicInfo()
                    guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
                        return failure("libjxl cannot read the header")
                    }
                    size = PixelSize(width: Int(info.xsize), height: Int(info.ysize))
                    if size.width > limits.maxSide || size.height > limits.maxSide
                        || size.width * size.height > limits.maxPixels
                    {
                        return failure(
                            "the header declares \(size.width)x\(size.height), over the limits (\(limits.maxPixels) pixels, \(limits.maxSide) a side); not decoded"
                        )
                    }
                case JXL_DEC_JPEG_RECONSTRUCTION:
                    reconstructing = true
                    output.grow(to: min(max(64 << 10, input.count * 2), limits.maxOutputBytes))
                    guard JxlDecoderSetJPEGBuffer(decoder, output.start, output.capacity) == JXL_DEC_SUCCESS
                    else { return failure("cannot set the JPEG reconstruction buffer") }
                case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                    output.used = output.capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                    guard output.capacity < limits.maxOutputBytes else {
                        return failure("the rebuilt JPEG would pass \(limits.maxOutputBytes) bytes")
                    }
                    output.grow(to: min(output.capacity * 2, limits.maxOutputBytes))
                    guard
                        JxlDecoderSetJPEGBuffer(
                            decoder, output.start + output.used, output.capacity - output.used) == JXL_DEC_SUCCESS
                    else { return failure("cannot set the JPEG reconstruction buffer") }
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    if wantsJPEG {
                        return failure("the file holds no JPEG reconstruction data (it was not made from a JPEG)")
                    }
                    var info = JxlBasicInfo()
                    _ = JxlDecoderGetBasicInfo(decoder, &info)
                    var format = JxlPixelFormat(
                        num_channels: info.num_color_channels == 1 ? 1 : 3, data_type: JXL_TYPE_UINT8,
                        endianness: JXL_NATIVE_ENDIAN, align: 0)
                    var needed = 0
                    guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
                        needed <= limits.maxMemoryBytes
                    else { return failure("the picture would need more than the decoder memory limit") }
                    output.grow(to: needed)
                    guard JxlDecoderSetImageOutBuffer(decoder, &format, output.start, needed) == JXL_DEC_SUCCESS else {
                        return failure("cannot set the image buffer")
                    }
                case JXL_DEC_FULL_IMAGE:
                    if wantsJPEG {
                        output.used = output.capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                    }
                default:
                    continue
                }
            }
        }
        if let outcome { throw outcome }
        return (size, wantsJPEG ? output.bytes() : [])
    }

    /// A buffer libjxl writes into, which never moves while it does.
    private struct OutputBuffer {
        var start = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        var capacity = 1
        var used = 0

        /// Grows to at least `count` bytes, keeping what is used.
        mutating func grow(to count: Int) {
            guard count > capacity else { return }
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
            larger.update(from: start, count: used)
            start.deallocate()
            start = larger
            capacity = count
        }

        func bytes() -> [UInt8] { Array(UnsafeBufferPointer(start: start, count: used)) }

        func release() { start.deallocate() }
    }
}

/// Counts what libjxl allocates through its `JxlMemoryManager` and refuses an allocation that
/// would take the total past `limit`; libjxl then fails cleanly.
private final class MemoryBudget {
    let limit: Int
    var allocated = 0
    var refused = false

    init(limit: Int) { self.limit = limit }

    /// Each block carries its size in a 16-byte header (keeping malloc's alignment), so that a
    /// free can give it back.
    static let header = 16

    var manager: JxlMemoryManager {
        JxlMemoryManager(
            opaque: Unmanaged.passUnretained(self).toOpaque(),
            alloc: { opaque, size in
                let budget = Unmanaged<MemoryBudget>.fromOpaque(opaque!).takeUnretainedValue()
                guard budget.allocated + size <= budget.limit, let block = malloc(size + MemoryBudget.header) else {
                    budget.refused = true
                    return nil
                }
                block.storeBytes(of: size, as: Int.self)
                budget.allocated += size
                return block + MemoryBudget.header
            },
            free: { opaque, address in
                guard let address else { return }
                let budget = Unmanaged<MemoryBudget>.fromOpaque(opaque!).takeUnretainedValue()
                let block = address - MemoryBudget.header
                budget.allocated -= block.load(as: Int.self)
                Foundation.free(block)
            })
    }
}
