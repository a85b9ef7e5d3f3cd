// A UIKit collection view cell that loads a photo's ladder, and stops when it is reused.
import LadderClient
import UIKit

final class LadderCell: UICollectionViewCell {
    private let imageView = UIImageView()
    private var load: Task<Void, Never>?

    override init(frame: CGRect) {
        super.init(frame: frame)
        imageView.contentMode = .scaleAspectFit
        imageView.frame = contentView.bounds
        imageView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        contentView.addSubview(imageView)
    }

    required init?(coder: NSCoder) { fatalError("not used from storyboards") }

    func show(_ sha1: String, with client: LadderClient) {
        load?.cancel()
        let pixels = Int(max(bounds.width, bounds.height) * traitCollection.displayScale)
        load = Task { [imageView] in
            do {
                for try await event in client.load(.sha1(sha1), width: pixels, height: pixels) {
                    switch event {
                    case .placeholder(let hash, _):
                        imageView.image = hash.picture()?.cgImage.map { UIImage(cgImage: $0) }
                    case .scans(_, let data, _), .rung(_, let data, _):
                        imageView.image = UIImage(data: data) ?? imageView.image
                    case .failed: continue
                    }
                }
            } catch {
                // Cancelled by reuse: the next show(_:with:) starts over.
            }
        }
    }

    override func prepareForReuse() {
        super.prepareForReuse()
        load?.cancel()  // cancels every download this cell still waits for
        imageView.image = nil
    }
}
