// A SwiftUI view that shows a photo ladder built: the best picture in memory at once, else the
// placeholder, then each rung as it arrives (a progressive one sharper scan by scan), up to the
// one its size needs. Add the LadderClient product to the app.
import LadderClient
import SwiftUI

struct LadderImageView: View {
    let client: LadderClient
    let sha1: String
    var fit: Ladder.Fit = .aspectFill
    @Environment(\.displayScale) private var scale
    @State private var shown: Frame?

    var body: some View {
        GeometryReader { geometry in
            let width = Int(geometry.size.width * scale)
            let height = Int(geometry.size.height * scale)
            ZStack {
                if let picture = shown?.picture {
                    Image(decorative: picture.cgImage, scale: 1)
                        .resizable()
                        .aspectRatio(contentMode: fit == .aspectFill ? .fill : .fit)
                }
            }
            .frame(width: geometry.size.width, height: geometry.size.height)
            .clipped()
            // Restarts, cancelling the old load, when the photo or the size changes.
            .task(id: "\(sha1) \(width)x\(height)") {
                shown = client.cached(.sha1(sha1), width: width, height: height, fit: fit)
                guard shown?.isFinal != true else { return }
                let frames = client.load(.sha1(sha1), width: width, height: height, fit: fit)
                do {
                    for try await case .frame(let frame) in frames { shown = frame }
                } catch {
                    // Not in the manifest, or no index: what is shown stays.
                }
            }
        }
    }
}
