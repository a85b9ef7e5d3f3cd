import LadderManifest

/// The manifest's `scanEnds`: where each scan of a progressive variant ends, so that a client
/// can fetch only the first scans with an HTTP Range request, or tell when a refinement is
/// complete. They come from the written file's own segments, never from the script that was
/// asked for.
enum ScanEnds {
    /// For each scan in order, the offset just past its entropy-coded data; the last one is the
    /// offset just past the end-of-image marker (the file's length for the files ladder
    /// writes). Nil when the file has no scan, or ends without an end-of-image marker.
    static func offsets(in structure: JPEGStructure) -> [Int]? {
        guard let endOfImage = structure.endOfImage, !structure.scans.isEmpty else { return nil }
        return structure.scans.dropLast().map(\.endOffset) + [endOfImage]
    }

    /// The offsets as the manifest snapshot stores them: decimal, comma-separated.
    static func text(_ offsets: [Int]) -> String {
        offsets.map(String.init).joined(separator: ",")
    }

    /// Reads `text(_:)`'s output; nil when it is damaged.
    static func parse(_ text: String) -> [Int]? {
        guard !text.isEmpty else { return [] }
        var offsets: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Int(part), value >= 0 else { return nil }
            offsets.append(value)
        }
        return offsets
    }
}

extension JPEGStructure {
    /// The manifest's `scanEnds` for a file's bytes (see `ScanEnds.offsets(in:)`), or nil when
    /// the segment walk cannot read it.
    package static func scanEnds(of bytes: [UInt8]) -> [Int]? {
        (try? JPEGStructure(parsing: bytes)).flatMap(ScanEnds.offsets)
    }
}

extension Manifest.VariantEntry {
    /// True for a progressive variant recorded without `scanEnds`.
    var lacksScanEnds: Bool { progressive && scanEnds == nil }
}
