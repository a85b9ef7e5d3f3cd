internal import CLadder
internal import CVips
package import LadderManifest

/// A libvips image, owned: the reference is released when the value goes away.
///
/// Not `Sendable`: an image stays inside the function that made it. Operations return new images
/// and never change this one.
package final class Image {
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes ownership of a +1 reference.
    init(consuming pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    package var width: Int { Int(vips_image_get_width(pointer)) }
    package var height: Int { Int(vips_image_get_height(pointer)) }
    package var bands: Int { Int(vips_image_get_bands(pointer)) }
    package var size: PixelSize { PixelSize(width: width, height: height) }

    /// True for 8-bit unsigned samples.
    package var isEightBit: Bool { vips_image_get_format(pointer) == VIPS_FORMAT_UCHAR }

    /// True when the last band is alpha, as libvips understands it.
    package var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }

    /// True when the image is grayscale (1 band, or 2 with alpha).
    package var isGrayscale: Bool { bands - (hasAlpha ? 1 : 0) < 3 }

    // MARK: - Operations

    /// Runs a libvips operation that writes one output image, turning failure into an error.
    func apply(
        _ operation: String,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImagingError) -> Image {
        var output: UnsafeMutablePointer<VipsImage>?
        guard body(&output) == 0, let output else {
            throw ImagingError(operation: operation, path: nil, reason: takeVipsError())
        }
        return Image(consuming: output)
    }

    /// How a downscale is filtered: libvips' vips_resize(), a box shrink by an integer factor
    /// followed by a convolution `kernel` over what is left of the reduction.
    package struct Resampling: Sendable, Hashable, CustomStringConvertible {
        /// The interpolation kernel (libvips' VipsKernel).
        package enum Kernel: String, Sendable, Hashable, CaseIterable {
            case nearest, linear, cubic, mitchell, lanczos2, lanczos3

            var vipsKernel: VipsKernel {
                switch self {
                case .nearest: VIPS_KERNEL_NEAREST
                case .linear: VIPS_KERNEL_LINEAR
                case .cubic: VIPS_KERNEL_CUBIC
                case .mitchell: VIPS_KERNEL_MITCHELL
                case .lanczos2: VIPS_KERNEL_LANCZOS2
                case .lanczos3: VIPS_KERNEL_LANCZOS3
                }
            }
        }

        package var kernel: Kernel
        /// libvips' reducing gap: the box shrink stops while at least this factor is left to the
        /// kernel; 0 means no box shrink at all, the kernel alone spans the whole reduction.
        package var gap: Double

        package init(kernel: Kernel, gap: Double) {
            self.kernel = kernel
            self.gap = gap
        }

        /// libvips' default for vips_resize() in 8.14: a box shrink down to the last factor of
        /// two, Lanczos3 over the rest. The box shrink is faster and adds a little aliasing.
        package static let libvipsDefault = Resampling(kernel: .lanczos3, gap: 2)

        /// Lanczos3 over the whole reduction, with no box shrink: what a reference resampler
        /// does.
        package static let lanczos3 = Resampling(kernel: .lanczos3, gap: 0)

        /// One triangle (bilinear) filter as wide as the reduction, no box shrink: the cheapest
        /// smooth downscale, for pictures nobody looks at closely (a placeholder's few pixels).
        package static let triangle = Resampling(kernel: .linear, gap: 0)

        package var description: String { "\(kernel.rawValue) gap \(gap)" }
    }

    /// Resizes to exactly `target` (Wraps vips_resize(); a reduction of both sides with no box
    /// shrink and a kernel other than nearest wraps vips_reduce(), which makes the same pixels
    /// with fewer region buffers, which RenderingTests.workerImagingMemory holds a render
    /// worker's libvips memory to; docs/BENCHMARKS.md, "Memory per job").
    package func resized(
        to target: PixelSize, with resampling: Resampling = .libvipsDefault
    ) throws(ImagingError) -> Image {
        if target == size { return self }
        let hscale = Double(target.width) / Double(width)
        let vscale = Double(target.height) / Double(height)
        let reducesOnly = resampling.gap == 0 && resampling.kernel != .nearest && hscale < 1 && vscale < 1
        let result = try apply("resize") {
            reducesOnly
                ? ladder_vips_reduce(pointer, $0, 1 / hscale, 1 / vscale, resampling.kernel.vipsKernel)
                : ladder_vips_resize(pointer, $0, hscale, vscale, resampling.kernel.vipsKernel, resampling.gap)
        }

        guard result.size == target else {
            throw ImagingError(
                operation: "resize", path: nil,
                reason: "asked for \(target), libvips made \(result.size)")
        }
        return result
    }

    /// Composites the image over a solid background and drops its alpha band
    /// (Wraps vips_flatten()). Returns the image itself when it has no alpha.
    package func flattened(onto background: RGBColor) throws(ImagingError) -> Image {
        guard hasAlpha else { return self }
        let values: [Double] =
            isGrayscale
            ? [Self.luma(of: background)] : [Double(background.red), Double(background.green), Double(background.blue)]
        return try apply("flatten alpha") { ladder_vips_flatten(pointer, $0, values, Int32(values.count)) }
    }

    /// The grey level of `color` (Rec. 601 weights, as libvips uses for sRGB to B_W).
    static func luma(of color: RGBColor) -> Double {
        (0.299 * Double(color.red) + 0.587 * Double(color.green) + 0.114 * Double(color.blue)).rounded()
    }

    /// Converts to 8-bit sRGB, or 8-bit grayscale when the image is grayscale
    /// (Wraps vips_colourspace() and vips_cast()).
    package func inDisplaySpace() throws(ImagingError) -> Image {
        let space = isGrayscale ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        var image = self
        if vips_image_guess_interpretation(pointer) != space || !isEightBit {
            image = try apply("convert color") { ladder_vips_colorspace(pointer, $0, space) }
        }
        if !image.isEightBit {
            image = try image.apply("convert to 8 bits") { ladder_vips_cast(image.pointer, $0, VIPS_FORMAT_UCHAR) }
        }
        return image
    }

    /// Renders the pixels into memory, so that later operations read them instead of decoding
    /// again (Wraps vips_image_copy_memory()).
    package func inMemory() throws(ImagingError) -> Image {
        guard let copy = vips_image_copy_memory(pointer) else {
            throw ImagingError(operation: "decode", path: nil, reason: takeVipsError())
        }
        return Image(consuming: copy)
    }

    /// True when the image has an alpha channel and some pixel is less than opaque. The image
    /// must be 8-bit and in memory.
    package func hasTransparentPixels() throws(ImagingError) -> Bool {
        guard hasAlpha else { return false }
        let step = bands
        return try withPixels { raw in
            var offset = step - 1
            while offset < raw.count {
                if raw[offset] != 255 { return true }
                offset += step
            }
            return false
        }
    }

    /// Calls `body` with the image's 8-bit pixels, rows packed top to bottom.

    /// The image must be in memory (see `inMemory()`).
    package func withPixels<Result>(
        _ body: (UnsafeRawBufferPointer) -> Result
    ) throws(ImagingError) -> Result {
        guard let data = vips_image_get_data(pointer) else {
            throw ImagingError(operation: "read pixels", path: nil, reason: takeVipsError())
        }
        let count = width * height * bands * Int(vips_format_sizeof(vips_image_get_format(pointer)))
        return body(UnsafeRawBufferPointer(start: data, count: count))
    }

    /// Encodes with a libvips saver, for example `".png"` or `".png[compression=9]"`
    /// (Wraps vips_image_write_to_buffer()).
    package func encoded(as suffix: String) throws(ImagingError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard ladder_vips_write_to_buffer(pointer, suffix, &buffer, &length) == 0, let buffer else {
            throw ImagingError(operation: "encode \(suffix)", path: nil, reason: takeVipsError())
        }
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
