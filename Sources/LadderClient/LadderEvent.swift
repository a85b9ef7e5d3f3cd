public import Foundation
public import LadderManifest

/// One file of an image's ladder, as the client downloads it.
public struct Rung: Sendable, Equatable {
    /// The variant's name in the pipeline: "small_thumb", "large_thumb", "full"...
    public var name: String
    public var url: URL
    public var width: Int
    public var height: Int
    public var bytes: Int
    /// SHA-256 of the whole file, 64 lowercase hex digits.
    public var sha256: String
    public var progressive: Bool
    /// For a progressive file, the byte count after which each scan can be shown.
    public var scanEnds: [Int]?
    /// The file's format: "jpeg" for the JPEG rung, else the sibling's ("webp", "avif", "jxl").
    public var format: String = "jpeg"
}

/// What loading an image yields, in order: the placeholder, then each rung, then, for a
/// progressive rung, the bytes up to each scan end before the whole checked file.
public enum LadderEvent: Sendable, Equatable {
    /// The image's ThumbHash and mean colour, known before any download.
    case placeholder(ThumbHash, averageColor: RGBColor?)
    /// The first `scans` scans of a progressive rung that is still downloading: a prefix of
    /// the file, not yet checked (a `.failed` event follows when the whole file fails its check).
    case scans(Rung, data: Data, scans: Int)
    /// A whole rung, whose SHA-256 matched the manifest's.
    case rung(Rung, data: Data, fromCache: Bool)
    /// A rung that could not be used; the next rung follows.
    case failed(Rung, LadderError)
}

/// Why the client could not load something, with what and why.
public enum LadderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an HTTP status other than 200.
    case http(status: Int, url: URL)
    /// The transport failed (connection refused, reset, timed out...).
    case transport(url: URL, reason: String)
    /// The file's SHA-256 is not the manifest's: it was tampered with or damaged.
    case checksum(url: URL, expected: String, found: String)
    /// The file's length is not the manifest's.
    case length(url: URL, expected: Int, found: Int)
    /// Neither the manifest nor the index knows this image.
    case unknownImage(String)
    /// The manifest or an index file cannot be read.
    case catalog(url: URL, reason: String)

    public var description: String {
        switch self {
        case .http(let status, let url): "\(url.absoluteString): HTTP status \(status)"
        case .transport(let url, let reason): "\(url.absoluteString): \(reason)"
        case .checksum(let url, let expected, let found):
            "\(url.absoluteString): SHA-256 is \(found), the manifest says \(expected); the file was changed or damaged"
        case .length(let url, let expected, let found):
            "\(url.absoluteString): \(found) bytes, the manifest says \(expected)"
        case .unknownImage(let image): "no image \(image) in the manifest"
        case .catalog(let url, let reason): "\(url.absoluteString): \(reason)"
        }
    }
}
