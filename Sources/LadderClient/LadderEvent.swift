public import Foundation
public import LadderManifest

/// What loading an image yields: the pictures to show, in order, and the rungs that could not be
/// used.
public enum LadderEvent: Sendable {
    /// A picture to show in place of the one before: the placeholder, the first scans of a
    /// progressive rung still downloading, or a whole rung.
    case frame(Frame)
    /// A rung that could not be used (missing, damaged, undecodable); the load carries on with
    /// the next rung.
    case failed(Rung, LadderError)
}

/// A picture the client drew for an image, and what it shows.
public struct Frame: Sendable {
    /// What a frame shows of the image.
    public enum Stage: Sendable, Equatable {
        /// The placeholder (the ThumbHash the manifest carries, drawn small), and the image's mean
        /// colour; known before any download.
        case placeholder(ThumbHash, averageColor: RGBColor?)
        /// The first scans of a progressive rung whose file is still downloading: drawn from a
        /// prefix of the file before its SHA-256 can be checked (a `.failed` event follows when
        /// the whole file fails its check).
        case scans(Int)
        /// The whole rung, its SHA-256 checked.
        case whole
    }

    public var picture: Picture
    public var stage: Stage
    /// The rung drawn; nil for the placeholder.
    public var rung: Rung?
    /// The format of the file drawn; nil for the placeholder.
    public var format: Rung.Format?
    /// True for the whole rung the view needs, drawn at least as large as the view shows it:
    /// nothing sharper follows.
    public var isFinal: Bool

    public init(picture: Picture, stage: Stage, rung: Rung?, format: Rung.Format?, isFinal: Bool) {
        self.picture = picture
        self.stage = stage
        self.rung = rung
        self.format = format
        self.isFinal = isFinal
    }
}

/// Why the client could not load something, with what and why.
public enum LadderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an HTTP status the client cannot use (not 200, nor 206 for a
    /// range it asked for).
    case http(status: Int, url: URL)
    /// The transport failed (connection refused, reset, timed out...).
    case transport(url: URL, reason: String)
    /// The file's SHA-256 is not the manifest's: it was tampered with or damaged.
    case checksum(url: URL, expected: String, found: String)
    /// The file's length is not the manifest's.
    case length(url: URL, expected: Int, found: Int)
    /// The file's bytes cannot be decoded, or are not the picture the manifest describes.
    case decoding(url: URL, reason: String)
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
        case .decoding(let url, let reason): "\(url.absoluteString): cannot decode: \(reason)"
        case .unknownImage(let image): "no image \(image) in the manifest"
        case .catalog(let url, let reason): "\(url.absoluteString): \(reason)"
        }
    }
}
