// The decoder where ImageIO is not (Linux): libjpeg-turbo, through LadderJPEG, which links
// libjpeg alone.
#if !canImport(ImageIO) && canImport(LadderJPEG)
    import Foundation
    import LadderJPEG
    public import LadderManifest

    /// The decoder on platforms without ImageIO.
    public typealias PlatformDecoder = LibJPEGDecoder

    /// Decodes JPEG files with libjpeg-turbo in buffered-image mode, fed as the bytes arrive: each
    /// scan of a progressive file is drawn once, from the coefficients the scans before it left,
    /// never decoded again from the file's start. It reads JPEG only, so the client downloads a
    /// rung's JPEG.
    ///
    /// Each picture is the one libjpeg-turbo's own one-shot decoder (djpeg) makes of the same
    /// bytes followed by an end-of-image marker: block smoothing on, the integer inverse DCT,
    /// libjpeg's RGB conversion. A picture larger than the view is drawn smaller by libjpeg's
    /// scaled inverse DCT, at the fewest eighths of the file's size that still cover the view.
    public struct LibJPEGDecoder: ImageDecoding {
        public init() {}

        public var formats: Set<Rung.Format> { [.jpeg] }

        public func makeDecoder(for file: Rung.File, of rung: Rung, width: Int, height: Int) -> any IncrementalDecoding
        {
            LibJPEGIncrementalDecoder(file: file, rung: rung, width: width, height: height)
        }
    }

    /// One file's decoding: libjpeg sees the bytes up to the end of the scan to draw (and the
    /// two bytes of the marker that ends it), draws it, and carries on from there for the next.
    final class LibJPEGIncrementalDecoder: IncrementalDecoding {
        private let file: Rung.File
        private let scanEnds: [Int]
        private let maximumScans: Int
        private let expected: (width: Int, height: Int)
        private let scaleEighths: Int
        /// What libjpeg may hold: the coefficients of the picture the manifest describes (at most 6
        /// bytes a pixel, without chroma subsampling) and its buffers; a file whose header claims
        /// a larger picture fails as soon as it is read.
        private let memoryLimit: Int
        private var replay: JPEGReplayDecoder?
        /// The scan being painted, while its last rows wait for more bytes.
        private var painting: Int?
        /// The last scan drawn.
        private var drawn = 0

        init(file: Rung.File, rung: Rung, width: Int, height: Int) {
            self.file = file
            scanEnds = file.format == .jpeg && rung.progressive ? rung.scanEnds : []
            maximumScans = rung.progressive ? (rung.scanEnds.isEmpty ? 100 : rung.scanEnds.count) : 1
            // The fewest eighths whose picture (libjpeg rounds its sides up) still covers the view.
            scaleEighths =
                (1...8).first {
                    (rung.width * $0 + 7) / 8 >= min(width, rung.width)
                        && (rung.height * $0 + 7) / 8 >= min(height, rung.height)
                } ?? 8
            expected = ((rung.width * scaleEighths + 7) / 8, (rung.height * scaleEighths + 7) / 8)
            memoryLimit = rung.width * rung.height * 6 + (16 << 20)
        }

        func picture(from data: Data, scans: Int, isComplete: Bool) throws(LadderError) -> Picture? {
            do {
                return try draw(data, scans: scans, isComplete: isComplete)
            } catch {
                throw .decoding(url: file.url, reason: error.reason)
            }
        }

        private func draw(_ data: Data, scans: Int, isComplete: Bool) throws(ImagingError) -> Picture? {
            let replay: JPEGReplayDecoder
            if let existing = self.replay {
                replay = existing
            } else {
                replay = try JPEGReplayDecoder(
                    length: file.bytes, maximumScans: maximumScans, rgb: true, scaleEighths: scaleEighths,
                    maximumMemory: memoryLimit)
                self.replay = replay
            }
            if data.count > replay.received {
                data.withUnsafeBytes { replay.append(UnsafeRawBufferPointer(rebasing: $0[replay.received...])) }
            }
            let received = replay.received

            // A paint waiting for the next scan's header finishes first; it is shown only when it
            // is still the newest scan asked for.
            if let scan = painting {
                replay.expose(received)
                guard let pixels = try replay.paintRows() else { return nil }
                painting = nil
                drawn = scan
                if scan >= scans && !isComplete { return picture(pixels) }
            }
            if isComplete {
                let state = try replay.advance(to: received)
                try check(state)
                try replay.startPainting(scan: max(1, state.inputScan))
                guard let pixels = try replay.paintRows() else {
                    throw ImagingError(operation: "decode", path: nil, reason: "the whole file does not draw")
                }
                return picture(pixels)
            }
            guard scans > drawn, scans <= scanEnds.count else { return nil }
            // The scan's data and the two bytes of the marker after it: libjpeg then knows the scan
            // is complete, and has not read the next scan's header.
            let end = scanEnds[scans - 1] + 2
            guard received >= min(end, file.bytes) else { return nil }
            let state = try replay.advance(to: end)
            guard state.headerReady, state.scansCompleted >= scans else { return nil }
            try check(state)
            try replay.startPainting(scan: scans)
            painting = scans
            // After a DC scan libjpeg paints the last two block rows once it has read the next
            // scan's header; it reads no further than that header.
            var pixels = try replay.paintRows()
            if pixels == nil {
                replay.expose(received)
                pixels = try replay.paintRows()
            }
            guard let pixels else { return nil }
            painting = nil
            drawn = scans
            return picture(pixels)
        }

        /// Refuses a file that is not the picture the manifest describes.
        private func check(_ state: JPEGReplayDecoder.State) throws(ImagingError) {
            guard state.width == expected.width, state.height == expected.height else {
                throw ImagingError(
                    operation: "decode", path: nil,
                    reason:
                        "the file draws \(state.width)x\(state.height) at \(scaleEighths)/8, the manifest says \(expected.width)x\(expected.height)"
                )
            }
        }

        private func picture(_ pixels: DecodedPixels) -> Picture {
            Picture(width: pixels.width, height: pixels.height, components: pixels.components, samples: pixels.samples)
        }
    }
#endif
