import Foundation
package import LadderManifest

/// Static markup for an image of a build, for pages that load no script: an `<img>` whose
/// `srcset` lists every rung, with `sizes`, the image's width and height (so that nothing shifts
/// while it loads) and the placeholder as its background; or a `<picture>` with one `<source>`
/// per format sibling, when the build wrote siblings. Everything taken from the manifest or the
/// settings is escaped for the place it goes (URL, `srcset` candidate, CSS, HTML attribute).
package struct StaticMarkup: Sendable {
    /// How the placeholder is painted behind the image until it loads.
    package enum PlaceholderStyle: String, Sendable, CaseIterable {
        /// The ThumbHash, decoded to a small PNG in a data URL, over the average colour.
        case image
        /// The average colour only.
        case color
        /// Nothing.
        case none
    }

    /// The `loading` attribute of the `<img>`.
    package enum Loading: String, Sendable, CaseIterable {
        case lazy, eager
    }

    package struct Settings: Sendable {
        /// The URL the manifest's folder is served at ("https://cdn.example.com/photos/",
        /// "/photos/"); empty to leave the paths relative to that folder.
        package var base: String = ""
        /// The `sizes` attribute: how wide the image is shown, in CSS terms.
        package var sizes: String = "100vw"
        package var placeholder: PlaceholderStyle = .image
        package var loading: Loading = .lazy
        /// The `alt` text of the `html` markup; templates that build their own markup give theirs.
        package var alt: String = ""
        /// A `class` for the `<img>`.
        package var className: String?

        package init() {}
    }

    /// The MIME type of each format sibling a manifest may list, in the order a `<picture>`
    /// offers them when they weigh the same.
    package static let formatTypes: [(format: String, type: String)] = [
        ("avif", "image/avif"), ("jxl", "image/jxl"), ("webp", "image/webp"),
    ]

    package let settings: Settings

    package init(settings: Settings) {
        self.settings = settings
    }

    /// Everything a template needs to show one image, and the markup made of it.
    package func publish(_ entry: Manifest.ImageEntry, sha1: String) -> PublishedImage {
        let rungs = Self.rungs(of: entry)
        let largest = rungs.last
        let published = rungs.map { name, variant in
            PublishedImage.Rung(
                name: name, width: variant.width, height: variant.height, url: url(variant.path),
                bytes: variant.bytes,
                formats: (variant.formats ?? [:]).mapValues { .init(url: url($0.path), bytes: $0.bytes) })
        }
        let srcset = Self.srcset(published.map { ($0.url, $0.width) })
        var sources: [PublishedImage.Source] = []
        for (format, type) in siblingOrder(published) {
            // A rung without a smaller sibling in this format offers its JPEG in the same list,
            // so that the browser still picks by width among every rung.
            let candidates = published.map { rung in
                guard let sibling = rung.formats[format], sibling.bytes < rung.bytes else {
                    return (rung.url, rung.width)
                }
                return (sibling.url, rung.width)
            }
            sources.append(.init(type: type, srcset: Self.srcset(candidates)))
        }
        let color = entry.averageColor.flatMap(RGBColor.init)?.description
        var placeholderImage: String?
        if settings.placeholder == .image, let text = entry.placeholder, let hash = ThumbHash(base64: text) {
            placeholderImage = PlaceholderPicture.pngDataURL(of: hash)
        }
        var style = ""
        if settings.placeholder != .none {
            let layers = [color, placeholderImage.map { "url(\"\($0)\") 50% 50% / cover no-repeat" }].compactMap { $0 }
            if !layers.isEmpty { style = "background: " + layers.joined(separator: " ") }
        }
        var image = PublishedImage(
            sha1: sha1, sources: entry.sources.sorted(), width: largest?.1.width ?? entry.width,
            height: largest?.1.height ?? entry.height, src: published.last?.url ?? "", srcset: srcset,
            sizes: settings.sizes, picture: sources,
            placeholder: .init(color: color, image: placeholderImage), style: style, rungs: published, html: "")
        image.html = html(image)
        return image
    }

    /// The variants of an entry, smallest first: by pixels, then by bytes (of two rungs of one
    /// size, as when a source is smaller than both boxes, the lighter file), then by name.
    static func rungs(of entry: Manifest.ImageEntry) -> [(String, Manifest.VariantEntry)] {
        entry.variants.sorted {
            ($0.value.width * $0.value.height, $0.value.bytes, $0.key)
                < ($1.value.width * $1.value.height, $1.value.bytes, $1.key)
        }
    }

    /// The formats offered before the JPEG: those with a sibling smaller than its JPEG in some
    /// rung, fewest bytes over all rungs first (a browser takes the first `<source>` whose type
    /// it decodes).
    func siblingOrder(_ rungs: [PublishedImage.Rung]) -> [(String, String)] {
        let weighed = Self.formatTypes.compactMap { format, type -> (String, String, Int)? in
            guard rungs.contains(where: { ($0.formats[format]?.bytes ?? Int.max) < $0.bytes }) else { return nil }
            let total = rungs.reduce(0) { sum, rung in
                let sibling = rung.formats[format].map { $0.bytes < rung.bytes ? $0.bytes : rung.bytes }
                return sum + (sibling ?? rung.bytes)
            }
            return (format, type, total)
        }
        // Stable: equal weights keep formatTypes' order.
        return weighed.enumerated().sorted { ($0.element.2, $0.offset) < ($1.element.2, $1.offset) }
            .map { ($0.element.0, $0.element.1) }
    }

    /// A variant's URL: the base, then the path with every segment percent-encoded.
    func url(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? String($0)
        }
        return Self.normalizedBase(settings.base) + segments.joined(separator: "/")
    }

    /// Characters a path segment keeps as they are: RFC 3986's unreserved ones.
    static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// Characters a base URL keeps: unreserved, reserved and `%` (a base may be percent-encoded
    /// already); spaces, quotes and angle brackets are encoded.
    static let baseCharacters = segmentCharacters.union(CharacterSet(charactersIn: ":/?#[]@!$&'()*+,;=%"))

    /// The base, percent-encoded where a URL needs it, ending with "/" unless it is empty.
    static func normalizedBase(_ base: String) -> String {
        guard !base.isEmpty else { return "" }
        let encoded = base.addingPercentEncoding(withAllowedCharacters: baseCharacters) ?? base
        return encoded.hasSuffix("/") ? encoded : encoded + "/"
    }

    /// A `srcset` value: each URL with its width descriptor, the first of each width only (a
    /// width given twice makes the list invalid). Commas in a URL would split the list, so they
    /// are percent-encoded (a URL's meaning does not change).
    static func srcset(_ candidates: [(url: String, width: Int)]) -> String {
        var widths = Set<Int>()
        return candidates.filter { widths.insert($0.width).inserted }.map {
            $0.url.replacingOccurrences(of: ",", with: "%2C") + " \($0.width)w"
        }
        .joined(separator: ", ")
    }

    /// The markup: an `<img>`, inside a `<picture>` when there are siblings.
    func html(_ image: PublishedImage) -> String {
        var attributes: [(String, String)] = [
            ("src", image.src), ("srcset", image.srcset), ("sizes", image.sizes), ("width", "\(image.width)"),
            ("height", "\(image.height)"), ("alt", settings.alt), ("loading", settings.loading.rawValue),
            ("decoding", "async"),
        ]
        if !image.style.isEmpty { attributes.append(("style", image.style)) }
        if let className = settings.className { attributes.append(("class", className)) }
        let img = "<img" + attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined() + ">"
        guard !image.picture.isEmpty else { return img }
        let sources = image.picture.map {
            "<source type=\"\(escape($0.type))\" srcset=\"\(escape($0.srcset))\" sizes=\"\(escape(image.sizes))\">"
        }
        return "<picture>" + sources.joined() + img + "</picture>"
    }
}

/// One image as `ladder html --json` gives it to templates.
package struct PublishedImage: Sendable, Encodable, Equatable {
    package struct Rung: Sendable, Encodable, Equatable {
        package struct Sibling: Sendable, Encodable, Equatable {
            package var url: String
            package var bytes: Int
        }

        package var name: String
        package var width: Int
        package var height: Int
        package var url: String
        package var bytes: Int
        /// The rung's format siblings, by format.
        package var formats: [String: Sibling]
    }

    /// A `<source>` of the `<picture>`.
    package struct Source: Sendable, Encodable, Equatable {
        package var type: String
        package var srcset: String
    }

    package struct PlaceholderPaint: Sendable, Encodable, Equatable {
        /// The average colour, `#rrggbb`.
        package var color: String?
        /// The ThumbHash as a PNG data URL.
        package var image: String?
    }

    package var sha1: String
    package var sources: [String]
    /// The largest rung's size: the `width` and `height` attributes.
    package var width: Int
    package var height: Int
    /// The largest rung's URL.
    package var src: String
    package var srcset: String
    package var sizes: String
    /// The `<source>`s before the `<img>`, empty when the build wrote no siblings.
    package var picture: [Source]
    package var placeholder: PlaceholderPaint
    /// The CSS that paints the placeholder (a `background`), empty when there is none.
    package var style: String
    /// Smallest first.
    package var rungs: [Rung]
    /// The markup, escaped, ready to paste.
    package var html: String
}
