public import Foundation
public import LadderManifest

/// What decodes the client's files: the formats it reads, and a decoder for each file as it
/// downloads. The client uses `PlatformDecoder` unless it is given another.
public protocol ImageDecoding: Sendable {
    /// The formats it decodes: the client downloads the smallest of a rung's files in one of
    /// them (the JPEG when none is smaller).
    var formats: Set<Rung.Format> { get }

    /// A decoder for `file` of `rung`, whose pictures are shown at `width` x `height` pixels (at
    /// most the rung's size): it may draw smaller pictures than the file's, down to that size.
    func makeDecoder(for file: Rung.File, of rung: Rung, width: Int, height: Int) -> any IncrementalDecoding
}

/// Decodes one file while it downloads, carrying what it decoded from call to call, so that no
/// byte is decoded twice. Used by one load at a time, off the main actor.
public protocol IncrementalDecoding: AnyObject {
    /// The picture that the file's first `data.count` bytes show once its first `scans` scans
    /// are complete (a progressive JPEG's scans end where the rung's `scanEnds` say), or the
    /// whole file's when `isComplete`; nil when those bytes cannot show it yet (the decoder may
    /// need a few bytes past a scan's end) or show nothing new. `data` only grows from call to
    /// call.
    func picture(from data: Data, scans: Int, isComplete: Bool) throws(LadderError) -> Picture?
}
