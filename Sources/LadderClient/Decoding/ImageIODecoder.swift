// The decoder on Apple platforms: ImageIO, compiled only where it exists.
#if canImport(ImageIO)
    public import Foundation
    import CoreGraphics
    import ImageIO
    public import LadderManifest

    /// The decoder on Apple platforms.
    public typealias PlatformDecoder = ImageIODecoder

    /// Decodes with ImageIO: an incremental image source fed the bytes so far
    /// (`CGImageSourceCreateIncremental`, `CGImageSourceUpdateData`), which carries its decoding
    /// from call to call; each picture decoded when it is made
    /// (`kCGImageSourceShouldCacheImmediately`), off the main actor, and subsampled by 2, 4 or 8
    /// when the view shows it that much smaller (`kCGImageSourceSubsampleFactor`). It reads
    /// every format this system's ImageIO reads among JPEG, WebP, AVIF and JPEG XL.
    public struct ImageIODecoder: ImageDecoding {
        public init() {}

        public var formats: Set<Rung.Format> {
            let types = Set((CGImageSourceCopyTypeIdentifiers() as? [String]) ?? [])
            let known: [(String, Rung.Format)] = [
                ("org.webmproject.webp", .webp), ("public.avif", .avif), ("public.jpeg-xl", .jxl),
            ]
            return Set(known.filter { types.contains($0.0) }.map(\.1)).union([.jpeg])
        }

        public func makeDecoder(for file: Rung.File, of rung: Rung, width: Int, height: Int) -> any IncrementalDecoding
        {
            // The largest factor whose picture (sides rounded up) still covers the view.
            let factor =
                [8, 4, 2].first {
                    (rung.width + $0 - 1) / $0 >= min(width, rung.width)
                        && (rung.height + $0 - 1) / $0 >= min(height, rung.height)
                } ?? 1
            return ImageIOIncrementalDecoder(
                file: file, scanEnds: file.format == .jpeg && rung.progressive ? rung.scanEnds : [],
                subsampleFactor: factor)
        }
    }

    /// One file's incremental image source. Each scan is drawn from the bytes up to its end, so
    /// that a picture shows whole scans only.
    final class ImageIOIncrementalDecoder: IncrementalDecoding {
        private let file: Rung.File
        private let scanEnds: [Int]
        private let subsampleFactor: Int
        private let source = CGImageSourceCreateIncremental(nil)
        private var drawn = 0

        init(file: Rung.File, scanEnds: [Int], subsampleFactor: Int) {
            self.file = file
            self.scanEnds = scanEnds
            self.subsampleFactor = subsampleFactor
        }

        func picture(from data: Data, scans: Int, isComplete: Bool) throws(LadderError) -> Picture? {
            if isComplete {
                CGImageSourceUpdateData(source, data as CFData, true)
            } else {
                guard scans > drawn, scans <= scanEnds.count, data.count >= scanEnds[scans - 1] else { return nil }
                CGImageSourceUpdateData(source, data.prefix(scanEnds[scans - 1]) as CFData, false)
            }
            let options: [CFString: Any] = [
                kCGImageSourceShouldCacheImmediately: true, kCGImageSourceSubsampleFactor: subsampleFactor,
            ]
            guard let image = CGImageSourceCreateImageAtIndex(source, 0, options as CFDictionary) else {
                if isComplete { throw .decoding(url: file.url, reason: "ImageIO cannot decode it") }
                return nil
            }
            drawn = scans
            return Picture(cgImage: image)
        }
    }
#endif
