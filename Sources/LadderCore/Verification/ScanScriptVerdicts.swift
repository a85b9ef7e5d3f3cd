import LadderImaging
import Synchronization

/// What `ProgressiveScripts.mismatch` found for each scan script verify met, by variant: a
/// catalogue's files share a few scripts, and checking each file's (that it is complete, then
/// its text against the manifest's) was 2.7 % of verify's CPU at 30,000 sources.
final class ScanScriptVerdicts: Sendable {
    private struct Key: Hashable {
        var variant: String
        var scans: [JPEGScan]
        var components: Int
        var recorded: String?
    }

    /// At most this many are kept: a manifest written by hand may give every file its own script.
    private static let capacity = 4096
    private let found = Mutex<[Key: (kind: String, message: String)?]>([:])

    /// `scripts.mismatch(scans, components:recorded:)` for the variant named `variant`, whose
    /// recipe's scripts are `scripts`, worked out once for each script and recorded text.
    func mismatch(
        variant: String, _ scripts: ProgressiveScripts, _ scans: [JPEGScan], components: Int, recorded: String?
    ) -> (kind: String, message: String)? {
        let key = Key(variant: variant, scans: scans, components: components, recorded: recorded)
        if let known = found.withLock({ $0[key] }) { return known }
        let mismatch = scripts.mismatch(scans, components: components, recorded: recorded)
        found.withLock { found in
            if found.count < Self.capacity { found[key] = .some(mismatch) }
        }
        return mismatch
    }
}
