import LadderImaging

/// The scan scripts `"script": "auto"` chooses from: every one has exactly the variant's number
/// of scans, sends every bit of every coefficient, and carries the DC of every component in its
/// first scan (so the first picture has its colors; browsers paint nothing before).
///
/// They differ in how the rest is ordered:
/// - the DC at full precision, or its lowest bit withheld (a smaller first scan, for smooth
///   images whose DC is a large part of the file) and sent in the last scan;
/// - luma AC split by successive approximation (all of it but the lowest bit, then that bit) or
///   spectrally (coefficients 1 to k, then k+1 to 63, for several k), or sent whole;
/// - chroma AC right after the first luma scan: the low frequencies of luma first (what makes
///   the picture beat the thumbnail on screen), then colour, then the rest of luma. Chroma
///   scans are small and what the screen shows gains much from them; right after the DC they
///   only delay luma, after all of luma they leave the colours of an eighth of the resolution
///   on screen for most of the download. On the camera photos of the test corpus, NVIDIA's FLIP
///   at a phone's width scored chroma in the middle best, chroma last worst
///   (docs/SCAN_SCRIPTS.md), and one place keeps the choice's cost down.
package enum ScanScriptCandidates {
    /// Bumped whenever the candidates or the way they are scored change, so that files whose
    /// script was chosen the old way are made again.
    package static let revision = 8

    /// The places where spectral splits of luma cut the zigzag order: the first 2, 3, 5 or 7 AC
    /// coefficients go first (the low-frequency corners of each block), then chroma, then the
    /// rest. Revision 6 chose them with FLIP (docs/SCAN_SCRIPTS.md): with a thumbnail on screen,
    /// the first luma scan must be small enough to beat it early, and the best cut was 2 on
    /// some photos and 5 on others.
    static let spectralCuts = [2, 3, 5, 7]

    /// Every candidate for an image with `components` components (1 or 3) and exactly `scans`
    /// scans, without repeats. Empty when no script of that length can hold the image.
    package static func all(scans: Int, components: Int) -> [ScanScript] {
        var scripts: [ScanScript] = []
        func add(_ script: ScanScript) {
            guard script.scans.count == scans, !scripts.contains(script),
                (try? script.validate(componentCount: components)) != nil
            else { return }
            scripts.append(script)
        }
        if scans == 5 { add(components == 1 ? .recommendedGrayscale : .recommendedColor) }
        let allComponents = Array(0..<components)
        let chroma: [JPEGScan] =
            components == 3
            ? [
                JPEGScan(components: [2], ss: 1, se: 63, ah: 0, al: 0),
                JPEGScan(components: [1], ss: 1, se: 63, ah: 0, al: 0),
            ] : []
        for reducedDC in [false, true] {
            let dcFirst = JPEGScan(components: allComponents, ss: 0, se: 0, ah: 0, al: reducedDC ? 1 : 0)
            let dcLast = reducedDC ? [JPEGScan(components: allComponents, ss: 0, se: 0, ah: 1, al: 0)] : []
            let lumaScans = scans - 1 - chroma.count - dcLast.count
            guard lumaScans >= 1 else { continue }
            for luma in lumaPlans(scans: lumaScans) {
                // Chroma right after the first luma scan: see the type's comment.
                let rest = luma + dcLast
                add(ScanScript([dcFirst] + rest.prefix(1) + chroma + rest.dropFirst(1)))
            }
        }
        return scripts
    }

    /// Ways to send the AC coefficients of component 0 in exactly `scans` scans: successive
    /// approximation (all of it but the lowest bit first: the only plan whose first luma scan
    /// beats the thumbnail early on a noisy picture, whose detail is in the high frequencies),
    /// and spectral bands.
    static func lumaPlans(scans: Int) -> [[JPEGScan]] {
        func band(_ ss: Int, _ se: Int, ah: Int = 0, al: Int = 0) -> JPEGScan {
            JPEGScan(components: [0], ss: ss, se: se, ah: ah, al: al)
        }
        if scans == 1 { return [[band(1, 63)]] }
        var plans: [[JPEGScan]] = []
        // Successive approximation: all AC but the lowest bit, split spectrally over the first
        // scans, then the lowest bit of all of them.
        let approximate = spectralBands(count: scans - 1).map { band($0.0, $0.1, al: 1) }
        plans.append(approximate + [band(1, 63, ah: 1, al: 0)])
        // Spectral: the first band cut at each of the chosen places, the rest split evenly.
        for cut in spectralCuts {
            let rest = spectralBands(count: scans - 1, from: cut + 1)
            guard rest.count == scans - 1 else { continue }
            plans.append([band(1, cut)] + rest.map { band($0.0, $0.1) })
        }
        return plans
    }

    /// `count` contiguous bands covering coefficients `from`...63, each about as wide in the
    /// zigzag order as the next (low frequencies, which carry most of the energy, in narrower
    /// bands first).
    static func spectralBands(count: Int, from start: Int = 1) -> [(Int, Int)] {
        guard count >= 1, 63 - start + 1 >= count else { return [] }
        var bands: [(Int, Int)] = []
        var low = start
        for index in 0..<count {
            let remaining = count - index
            let high = index == count - 1 ? 63 : low + max(0, (63 - low + 1) / remaining - 1)
            bands.append((low, high))
            low = high + 1
        }
        return bands
    }
}
