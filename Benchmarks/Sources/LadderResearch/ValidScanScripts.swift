package import LadderCore
package import LadderImaging

/// Every 5-scan script a color image may have under ladder's rules: exactly 5 scans, the DC of
/// every component in the first scan, every bit of every coefficient sent (so every one is made
/// losslessly from the same coefficients). The candidates of `"script": "auto"` are a few of
/// them; this is the space they are checked against (`ScanComparison.bestValid`).
///
/// With the first scan the DC of all three components, four scans are left, and each chroma
/// component needs at least one AC scan, so the scripts are:
/// - the DC at full precision, two luma AC scans and one AC scan per chroma component. Two luma
///   scans cover coefficients 1-63 either spectrally (1-k and k+1-63, for every k from 1 to 62,
///   in either order) or by successive approximation (all but the lowest bit, then that bit; a
///   coarser first pass would need more refinement scans than there are). The two chroma scans
///   go anywhere among the luma scans, in either order: 12 orders per luma plan.
/// - the DC without its lowest bit, and one scan that refines it; luma AC then fits in one scan.
///   The refinement, the luma scan and the chroma scans come in any order: 24 orders. (Withholding
///   two bits would take two refinement scans and leave none for luma.)
/// - the DC at full precision, luma AC in one scan, and one chroma component in two scans. The
///   luma picture then depends only on where the luma scan is, and how chroma is split changes
///   only the scans' lengths, so the chroma splits are a sample: by successive approximation, or
///   spectrally after 1, 5, 9 or 20 coefficients, in every order.
package enum ValidScanScripts {
    /// Every valid 5-scan script for a 3-component image, without repeats. Spectral luma
    /// splits with the high band first are included only at `reversedCuts` (they show high
    /// frequencies over a DC-only picture and never came near the best on photos or renders
    /// when tried at every cut); `reversedCuts: nil` includes them at every cut.
    package static func color(reversedCuts: [Int]? = [1, 2, 5, 9, 20, 40]) -> [ScanScript] {
        func scan(_ components: [Int], _ ss: Int, _ se: Int, ah: Int = 0, al: Int = 0) -> JPEGScan {
            JPEGScan(components: components, ss: ss, se: se, ah: ah, al: al)
        }
        let cb = scan([1], 1, 63)
        let cr = scan([2], 1, 63)
        var scripts: [ScanScript] = []
        var seen: Set<ScanScript> = []
        func add(_ scans: [JPEGScan]) {
            let script = ScanScript(scans)
            guard scans.count == 5, !seen.contains(script), (try? script.validate(componentCount: 3)) != nil else {
                return
            }
            seen.insert(script)
            scripts.append(script)
        }

        // The DC at full precision, luma in two scans.
        let dc = scan([0, 1, 2], 0, 0)
        var lumaPlans: [[JPEGScan]] = [[scan([0], 1, 63, al: 1), scan([0], 1, 63, ah: 1)]]
        for cut in 1...62 { lumaPlans.append([scan([0], 1, cut), scan([0], cut + 1, 63)]) }
        for cut in reversedCuts ?? Array(1...62) { lumaPlans.append([scan([0], cut + 1, 63), scan([0], 1, cut)]) }
        for luma in lumaPlans {
            for order in interleavings(fixed: luma, free: [cb, cr]) { add([dc] + order) }
        }

        // The DC without its lowest bit, refined later; luma whole.
        let roughDC = scan([0, 1, 2], 0, 0, al: 1)
        let refinement = scan([0, 1, 2], 0, 0, ah: 1)
        for order in permutations([refinement, scan([0], 1, 63), cb, cr]) { add([roughDC] + order) }

        // The DC at full precision, luma whole, one chroma component in two scans.
        for (split, other) in [(1, cr), (2, cb)] {
            var chromaPlans: [[JPEGScan]] = [[scan([split], 1, 63, al: 1), scan([split], 1, 63, ah: 1)]]
            for cut in [1, 5, 9, 20] {
                chromaPlans.append([scan([split], 1, cut), scan([split], cut + 1, 63)])
                chromaPlans.append([scan([split], cut + 1, 63), scan([split], 1, cut)])
            }
            for chroma in chromaPlans {
                for order in interleavings(fixed: chroma, free: [scan([0], 1, 63), other]) { add([dc] + order) }
            }
        }
        return scripts
    }

    /// Every order of `fixed` (kept in its order) and `free` (in any order) together.
    static func interleavings(fixed: [JPEGScan], free: [JPEGScan]) -> [[JPEGScan]] {
        permutations(fixed + free).filter { order in
            let positions = fixed.map { scan in order.firstIndex(of: scan)! }
            return positions == positions.sorted()
        }
    }

    static func permutations(_ items: [JPEGScan]) -> [[JPEGScan]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}
