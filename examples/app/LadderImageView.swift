// A SwiftUI view that shows a photo ladder built: its placeholder at once, then each variant
// as it arrives, up to the one its size needs. Add the LadderClient product to the app.
import LadderClient
import SwiftUI

struct LadderImageView: View {
    let client: LadderClient
    let sha1: String
    @State private var image: Image?
    @Environment(\.displayScale) private var scale

    var body: some View {
        GeometryReader { geometry in
            ZStack {
                image?.resizable().scaledToFit()
            }
            .frame(width: geometry.size.width, height: geometry.size.height)
            // Restarts (and cancels the old load) when the photo or the size changes.
            .task(id: "\(sha1) \(geometry.size)") {
                let width = Int(geometry.size.width * scale), height = Int(geometry.size.height * scale)
                do {
                    for try await event in client.load(.sha1(sha1), width: width, height: height) {
                        switch event {
                        case .placeholder(let hash, _):
                            image = hash.picture()?.cgImage.map { Image(decorative: $0, scale: 1) }
                        case .scans(_, let data, _), .rung(_, let data, _):
                            if let decoded = UIImage(data: data) { image = Image(uiImage: decoded) }
                        case .failed: break  // the next rung follows
                        }
                    }
                } catch {
                    // Unknown image or no index: keep the placeholder, if any.
                }
            }
        }
    }
}
