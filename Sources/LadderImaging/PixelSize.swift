/// A width and height in pixels.
package struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    package var pixelCount: Int { width * height }

    /// The same size turned a quarter turn.
    package var transposed: PixelSize { PixelSize(width: height, height: width) }

    package var description: String { "\(width)x\(height)" }
}
