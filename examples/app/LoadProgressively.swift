import Foundation
import LadderManifest

/// How an app loads a photo that ladder built: the small thumbnail first, then the larger
/// variants, each replacing the picture on screen as soon as it arrives, and no further than the
/// view needs (the full-size image sharpens scan by scan while it loads, if the image view
/// decodes incrementally).
///
/// `fetch` downloads a URL (URLSession in an app); `show` puts a picture on screen.
func loadProgressively(
    sha1: String, resolver: VariantResolver, viewWidth: Int, viewHeight: Int,
    fetch: (URL) async throws -> Data, show: (Data, VariantResolver.Rung) -> Void
) async throws {
    guard let ladder = resolver.ladder(forSHA1: sha1),
        let last = resolver.rung(forSHA1: sha1, fittingWidth: viewWidth, height: viewHeight)
    else { return }
    for rung in ladder {
        show(try await fetch(rung.url), rung)
        if rung == last { break }
    }
}
