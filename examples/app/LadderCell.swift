// A UIKit collection view cell that shows a photo's ladder: the best picture in memory at once,
// then each rung as it arrives; reused, it cancels the downloads it still waits for.
import LadderClient
import UIKit

final class LadderCell: UICollectionViewCell {
    private let imageView = UIImageView()
    private var load: Task<Void, Never>?

    override init(frame: CGRect) {
        super.init(frame: frame)
        imageView.contentMode = .scaleAspectFill
        imageView.clipsToBounds = true
        imageView.frame = contentView.bounds
        imageView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        contentView.addSubview(imageView)
    }

    required init?(coder: NSCoder) { fatalError("not used from storyboards") }

    func show(_ sha1: String, with client: LadderClient) {
        load?.cancel()
        let scale = traitCollection.displayScale
        let width = Int(bounds.width * scale)
        let height = Int(bounds.height * scale)
        let cached = client.cached(.sha1(sha1), width: width, height: height, fit: .aspectFill)
        imageView.image = cached?.picture.uiImage
        guard cached?.isFinal != true else { return }
        load = Task { [imageView] in
            let frames = client.load(.sha1(sha1), width: width, height: height, fit: .aspectFill)
            do {
                for try await case .frame(let frame) in frames { imageView.image = frame.picture.uiImage }
            } catch {
                // Not in the manifest, or no index: what is shown stays.
            }
        }
    }

    override func prepareForReuse() {
        super.prepareForReuse()
        load?.cancel()  // cancels every download this cell still waits for
        imageView.image = nil
    }
}
