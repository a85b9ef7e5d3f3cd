package import Foundation
package import LadderManifest

/// What `ladder html` publishes: the static markup of the images asked for (or of every image of
/// the manifest), and, for templates, the lookup from each source path to its image.
package struct PublishedManifest: Sendable, Encodable {
    /// The format of this document, for templates that check it.
    package var version = 1
    /// By SHA1.
    package var images: [String: PublishedImage]
    /// Each source path of the images published, to its SHA1.
    package var sources: [String: String]

    /// Reads the manifest at `path` (a build's output, untrusted like everything verify reads).
    package static func read(manifestAt path: String) throws(PublishingError) -> Manifest {
        let bytes: [UInt8]
        do {
            bytes = try Directory.readFile(atPath: path, limit: 1 << 31)
        } catch {
            throw PublishingError(kind: .unreadable, path: path, reason: error.reason)
        }
        do {
            return try Manifest(jsonData: Data(bytes))
        } catch {
            throw PublishingError(kind: .invalid, path: path, reason: error.reason)
        }
    }

    /// The images of `manifest` named by `selection` (SHA1s or source paths; every image when
    /// empty), published with `markup`, and what of the selection the manifest does not have.
    package static func publish(
        _ manifest: Manifest, selecting selection: [String], markup: StaticMarkup
    ) -> (published: PublishedManifest, missing: [String]) {
        var chosen: [String] = []
        var missing: [String] = []
        if selection.isEmpty {
            chosen = manifest.images.keys.sorted()
        } else {
            var bySource: [String: String] = [:]
            for (sha1, entry) in manifest.images {
                for source in entry.sources { bySource[source] = sha1 }
            }
            for wanted in selection {
                if manifest.images[wanted.lowercased()] != nil {
                    chosen.append(wanted.lowercased())
                } else if let sha1 = bySource[wanted] {
                    chosen.append(sha1)
                } else {
                    missing.append(wanted)
                }
            }
        }
        var images: [String: PublishedImage] = [:]
        var sources: [String: String] = [:]
        for sha1 in chosen where images[sha1] == nil {
            guard let entry = manifest.images[sha1] else { continue }
            images[sha1] = markup.publish(entry, sha1: sha1)
            for source in entry.sources { sources[source] = sha1 }
        }
        var unique = Set<String>()
        let order = chosen.filter { unique.insert($0).inserted }
        return (PublishedManifest(images: images, sources: sources, order: order), missing)
    }

    /// The SHA1s in the order they were asked for (each once), for the text output.
    package var order: [String]

    private enum CodingKeys: String, CodingKey {
        case version, images, sources
    }

    /// The markup of each image asked for, in order, one per line.
    package var html: String {
        order.compactMap { images[$0]?.html }.map { $0 + "\n" }.joined()
    }

    /// The document as JSON: keys sorted, pretty-printed, a final newline.
    package func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }
}

/// Why `ladder html` cannot publish a manifest: which file, and why.
package struct PublishingError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// The manifest cannot be read (missing, permissions, an I/O error).
        case unreadable
        /// It is not a manifest this ladder reads.
        case invalid
    }

    package var kind: Kind
    package var path: String
    package var reason: String

    package var description: String {
        switch kind {
        case .unreadable: "cannot read the manifest '\(path)': \(reason)"
        case .invalid: "'\(path)' is not a usable manifest: \(reason)"
        }
    }
}
