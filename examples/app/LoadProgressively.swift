import Foundation
import LadderManifest

/// How an app that has the manifest, and no client library, loads a photo: the small thumbnail
/// first, then the larger variants, each replacing the picture on screen as soon as it arrives,
/// up to the one the view needs and no further.
///
/// `fetch` downloads a URL (URLSession in an app); `show` puts a picture on screen.
func loadProgressively(
    sha1: String, resolver: VariantResolver, viewWidth: Int, viewHeight: Int, fit: Ladder.Fit,
    fetch: (URL) async throws -> Data, show: (Data, Rung) -> Void
) async throws {
    let rungs = resolver.ladder(forSHA1: sha1)?.rungs(forWidth: viewWidth, height: viewHeight, fit: fit) ?? []
    for rung in rungs {
        show(try await fetch(rung.url), rung)
    }
}
