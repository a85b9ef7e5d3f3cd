package import LadderImaging

/// Receives the pictures a replay renders, to write them out (see `FrameGallery`).
package protocol FrameCollecting: Sendable {
    /// Pictures larger than this on their long side are scaled down; replays render their frames
    /// at most this large where libjpeg's n/8 scales allow it.
    var maximumSide: Int { get }

    /// One picture: a scan of a progressive variant, or (with `scan` nil) a whole baseline rung.
    func collect(image: String, variant: String, scan: Int?, pixels: DecodedPixels)

    /// A whole rung's file as it is, `width` x `height` pixels: a JPEG no larger than
    /// `maximumSide` is written unchanged, anything else decoded and collected as pixels.
    func collect(image: String, variant: String, file: [UInt8], width: Int, height: Int)
}
