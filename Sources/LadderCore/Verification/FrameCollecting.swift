public import LadderImaging

/// Receives the pictures a replay renders, to write them out (see `FrameGallery`).
public protocol FrameCollecting: Sendable {
    /// One picture: a scan of a progressive variant, or (with `scan` nil) a whole baseline rung.
    func collect(image: String, variant: String, scan: Int?, pixels: DecodedPixels)
}
