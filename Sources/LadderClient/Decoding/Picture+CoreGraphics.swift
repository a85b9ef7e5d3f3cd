// The client's pictures and placeholders as Apple's image types; compiled where CoreGraphics is.
#if canImport(CoreGraphics)
    public import CoreGraphics
    import Foundation
    public import LadderManifest

    #if canImport(UIKit)
        public import UIKit
    #elseif canImport(AppKit)
        public import AppKit
    #endif

    extension ThumbHash {
        /// The placeholder drawn as a `CGImage` at its own small size (up to 32 pixels a side),
        /// for `UIImage(cgImage:)` or SwiftUI's `Image(decorative:scale:)`; nil when the hash is
        /// not one.
        public func cgImage() -> CGImage? { picture()?.cgImage }
    }

    extension ThumbHash.Picture {
        /// These pixels as a `CGImage`: sRGB, alpha not premultiplied.
        public var cgImage: CGImage? {
            guard let provider = CGDataProvider(data: Data(rgba) as CFData),
                let space = CGColorSpace(name: CGColorSpace.sRGB)
            else { return nil }
            return CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
                space: space, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue), provider: provider,
                decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        }
    }

    #if canImport(UIKit)
        extension Picture {
            /// The picture as a `UIImage` of scale 1 (one point a pixel; a view sizes it).
            public var uiImage: UIImage { UIImage(cgImage: cgImage) }
        }
    #elseif canImport(AppKit)
        extension Picture {
            /// The picture as an `NSImage` of its size in pixels.
            public var nsImage: NSImage { NSImage(cgImage: cgImage, size: NSSize(width: width, height: height)) }
        }
    #endif
#endif
