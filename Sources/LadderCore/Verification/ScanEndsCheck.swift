import LadderManifest

/// `ladder verify`'s check of a variant's `scanEnds` against its file: a progressive variant
/// must list them, one per scan, each where the file's own segment walk finds that scan's
/// entropy-coded data ending (the last one at the end of the file). A client trusts them to cut
/// HTTP Range requests, so an offset that is off by one byte is a problem.
struct ScanEndsCheck {
    let entry: Manifest.VariantEntry
    let bytes: [UInt8]
    /// The file's structure when the caller has walked it already (with any scan limit: a walk
    /// that succeeded under one gives the same structure under a higher one).
    var structure: JPEGStructure? = nil
    let label: String
    let image: String

    func problems() -> [VerificationProblem] {
        func problem(_ message: String) -> [VerificationProblem] {
            [VerificationProblem(path: label, kind: .scanEnds, message: message, image: image)]
        }
        guard let listed = entry.scanEnds else {
            return entry.progressive
                ? problem("the manifest lists no scanEnds for this progressive variant; run ladder build") : []
        }
        // A file that cannot be walked is reported by the structure checks.
        guard let structure = structure ?? (try? JPEGStructure(parsing: bytes, scanLimit: ScanScript.maximumScans))
        else {
            return []
        }
        guard let actual = ScanEnds.offsets(in: structure) else {
            return problem("the manifest lists scanEnds, but the file has no complete scan to end")
        }
        if listed.count != actual.count {
            return problem("the manifest lists \(listed.count) scanEnds, the file has \(actual.count) scans")
        }
        guard let index = actual.indices.first(where: { listed[$0] != actual[$0] }) else { return [] }
        let what = index == actual.count - 1 ? "the file ends" : "scan \(index + 1) ends"
        return problem(
            "\(what) at byte \(actual[index]), the manifest's scanEnds[\(index)] says \(listed[index])")
    }
}
