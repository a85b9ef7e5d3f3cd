public import Foundation

/// An image's rungs, smallest first, and the one function that chooses which of them a view
/// loads: the smaller ones first, up to the first that is sharp enough for the view.
public struct Ladder: Sendable, Hashable {
    /// Every rung, smallest first (by pixels, then by name).
    public var rungs: [Rung]

    public init(rungs: [Rung]) {
        self.rungs = rungs.sorted { ($0.width * $0.height, $0.name) < ($1.width * $1.height, $1.name) }
    }

    /// The ladder of an entry of the manifest or the index, its paths resolved against `baseURL`
    /// (the folder that holds the manifest).
    public init(_ entry: ManifestIndex.Entry, baseURL: URL) {
        self.init(rungs: entry.variants.map { Rung(name: $0.key, variant: $0.value, baseURL: baseURL) })
    }

    /// How a view shows a picture of another aspect ratio.
    public enum Fit: Sendable, Hashable {
        /// All of the picture, inside the view (UIKit's `.scaleAspectFit`, SwiftUI's `.fit`).
        case aspectFit
        /// All of the view, the picture cropped (UIKit's `.scaleAspectFill`, SwiftUI's `.fill`).
        case aspectFill

        /// The size in pixels at which a `width` x `height` picture shows in a view of
        /// `viewWidth` x `viewHeight` pixels (points times the screen's scale), keeping its aspect
        /// ratio, the side that does not bind rounded to the nearest pixel (as the build rounds a
        /// variant's); never larger than the picture itself.
        public func shownSize(
            width: Int, height: Int, inWidth viewWidth: Int, height viewHeight: Int
        ) -> (
            width: Int, height: Int
        ) {
            let (width, height) = (max(1, width), max(1, height))
            let (viewWidth, viewHeight) = (max(1, viewWidth), max(1, viewHeight))
            // In integers: the view's width binds when viewWidth / width <= viewHeight / height
            // (the smaller scale fits, the larger fills).
            let widthBinds = (viewWidth * height <= viewHeight * width) == (self == .aspectFit)
            let shown =
                widthBinds
                ? (width: viewWidth, height: (height * viewWidth + width / 2) / width)
                : (width: (width * viewHeight + height / 2) / height, height: viewHeight)
            return shown.width >= width || shown.height >= height ? (width, height) : shown
        }
    }

    /// The rungs a view of `width` x `height` pixels (points times the screen's scale) loads,
    /// smallest first: up to the first whose pixels cover the view as `fit` shows the picture,
    /// or all of them when none does. Its last is the rung the view needs.
    public func rungs(forWidth width: Int, height: Int, fit: Fit) -> [Rung] {
        guard let largest = rungs.last else { return [] }
        let shown = fit.shownSize(width: largest.width, height: largest.height, inWidth: width, height: height)
        guard let needed = rungs.firstIndex(where: { $0.width >= shown.width && $0.height >= shown.height }) else {
            return rungs
        }
        return Array(rungs[...needed])
    }
}
