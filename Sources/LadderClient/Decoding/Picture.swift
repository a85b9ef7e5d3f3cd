public import LadderManifest

#if canImport(CoreGraphics)
    public import CoreGraphics
#endif

/// A decoded picture, ready to draw: a `CGImage` on Apple platforms, 8-bit samples elsewhere.
public struct Picture {
    public let width: Int
    public let height: Int

    #if canImport(CoreGraphics)
        /// The picture, decoded when it was made (not on first draw).
        public let cgImage: CGImage

        public init(cgImage: CGImage) {
            self.cgImage = cgImage
            width = cgImage.width
            height = cgImage.height
        }

        /// The bytes it takes in memory.
        public var cost: Int { cgImage.bytesPerRow * cgImage.height }
    #else
        /// Samples per pixel: 1 (gray), 3 (RGB) or 4 (RGBA, alpha not premultiplied).
        public let components: Int
        /// 8-bit sRGB samples, interleaved, rows top to bottom, `width * components` bytes a row.
        public let samples: [UInt8]

        public init(width: Int, height: Int, components: Int, samples: [UInt8]) {
            self.width = width
            self.height = height
            self.components = components
            self.samples = samples
        }

        /// The bytes it takes in memory.
        public var cost: Int { samples.count }
    #endif

    /// The placeholder a ThumbHash describes, drawn at its own small size (up to 32 pixels a
    /// side; the view scales it up, smoothly); nil when the hash is not one.
    public init?(placeholder hash: ThumbHash) {
        guard let decoded = hash.picture() else { return nil }
        #if canImport(CoreGraphics)
            guard let image = decoded.cgImage else { return nil }
            self.init(cgImage: image)
        #else
            self.init(width: decoded.width, height: decoded.height, components: 4, samples: decoded.rgba)
        #endif
    }
}

#if canImport(CoreGraphics)
    // CGImage is immutable once made.
    extension Picture: @unchecked Sendable {}
#else
    extension Picture: Sendable {}
#endif
