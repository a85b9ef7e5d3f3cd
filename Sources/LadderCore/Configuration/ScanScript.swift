package import LadderImaging

/// A progressive JPEG scan script: the exact sequence of scans the encoder writes.
package struct ScanScript: Sendable, Hashable, CustomStringConvertible {
    package var scans: [JPEGScan]

    package init(_ scans: [JPEGScan]) { self.scans = scans }

    /// The recommended 5-scan script for color (YCbCr) images: the DC of all three components at
    /// full precision first (no color cast in the first paint, and browsers paint it at once),
    /// then all luma AC but its lowest bit, both chroma AC bands, and the luma refinement last.
    package static let recommendedColor = ScanScript([
        JPEGScan(components: [0, 1, 2], ss: 0, se: 0, ah: 0, al: 0),
        JPEGScan(components: [0], ss: 1, se: 63, ah: 0, al: 1),
        JPEGScan(components: [2], ss: 1, se: 63, ah: 0, al: 0),
        JPEGScan(components: [1], ss: 1, se: 63, ah: 0, al: 0),
        JPEGScan(components: [0], ss: 1, se: 63, ah: 1, al: 0),
    ])

    /// The recommended 5-scan script for grayscale images (mozjpeg's "jpgcrush" script).
    package static let recommendedGrayscale = ScanScript([
        JPEGScan(components: [0], ss: 0, se: 0, ah: 0, al: 0),
        JPEGScan(components: [0], ss: 1, se: 8, ah: 0, al: 2),
        JPEGScan(components: [0], ss: 9, se: 63, ah: 0, al: 2),
        JPEGScan(components: [0], ss: 1, se: 63, ah: 2, al: 1),
        JPEGScan(components: [0], ss: 1, se: 63, ah: 1, al: 0),
    ])

    /// jpegtran's `-scans` notation, one scan per clause: "0,1,2: 0-0, 0, 0; 0: 1-63, 0, 1; ...".
    package var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(scans.count * 20)
        for (index, scan) in scans.enumerated() {
            if index > 0 { text.append(UInt8(ascii: " ")) }
            scan.appendDescription(to: &text)
            text.append(UInt8(ascii: ";"))
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Parsing

    /// Parses jpegtran's scan-file notation: each scan is `components : Ss-Se, Ah, Al ;`, where
    /// components and numbers are separated by commas, dashes or spaces, and `#` starts a comment.
    package init(parsing text: String) throws(ScanScriptError) {
        var scans: [JPEGScan] = []
        let withoutComments = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
            .joined(separator: " ")
        let clauses = withoutComments.split(separator: ";").map { $0.trimmingWhitespace() }
        for (index, clause) in clauses.enumerated() where !clause.isEmpty {
            let number = index + 1
            let parts = clause.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw ScanScriptError(
                    scan: number, text: String(clause), rule: "a scan is written \"components: Ss-Se, Ah, Al\"")
            }
            func integers(_ part: Substring) -> [Int]? {
                let fields = part.split(whereSeparator: { $0 == "," || $0 == "-" || $0 == " " || $0 == "\t" })
                let values = fields.compactMap { Int($0) }
                return values.count == fields.count ? values : nil
            }
            guard let components = integers(parts[0]), !components.isEmpty else {
                throw ScanScriptError(
                    scan: number, text: String(clause), rule: "components must be numbers such as \"0,1,2\"")
            }
            guard let parameters = integers(parts[1]), parameters.count == 4 else {
                throw ScanScriptError(
                    scan: number, text: String(clause), rule: "give exactly four numbers after the colon: Ss-Se, Ah, Al"
                )
            }
            scans.append(
                JPEGScan(
                    components: components, ss: parameters[0], se: parameters[1], ah: parameters[2], al: parameters[3]))
        }
        guard !scans.isEmpty else {
            throw ScanScriptError(scan: nil, text: text, rule: "a script needs at least one scan")
        }
        self.init(scans)
    }

    // MARK: - Validation

    /// The most scans a script may have (files with more are refused as decoding bombs).
    package static let maximumScans = Defaults.maxScans

    /// libjpeg's limit on successive-approximation bit positions for 8-bit samples.
    static let maximumBitPosition = 10

    /// Checks the script against the rules of ITU-T T.81 Annex G as libjpeg enforces them, for
    /// an image with `componentCount` components, and that it sends every bit of every
    /// coefficient (anything less would lose image data).
    ///
    /// - Throws: `ScanScriptError` naming the first scan that breaks a rule, and the rule.
    package func validate(componentCount: Int) throws(ScanScriptError) {
        guard !scans.isEmpty else {
            throw ScanScriptError(scan: nil, text: "", rule: "a script needs at least one scan")
        }
        guard scans.count <= Self.maximumScans else {
            throw ScanScriptError(scan: nil, text: "", rule: "a script may have at most \(Self.maximumScans) scans")
        }
        // Per component and coefficient: the Al of the last scan that sent it, or nil.
        var lastAl = [[Int?]](repeating: [Int?](repeating: nil, count: 64), count: componentCount)
        for (index, scan) in scans.enumerated() {
            func fail(_ rule: String) -> ScanScriptError {
                ScanScriptError(scan: index + 1, text: scan.description, rule: rule)
            }
            guard (1...4).contains(scan.components.count) else {
                throw fail("a scan carries 1 to 4 components, this one lists \(scan.components.count)")
            }
            for component in scan.components where !(0..<componentCount).contains(component) {
                throw fail(
                    "component \(component) does not exist in a \(componentCount)-component image (components are numbered from 0)"
                )
            }
            guard zip(scan.components, scan.components.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw fail("components must be listed once each, in increasing order")
            }
            guard scan.ss >= 0, scan.se <= 63, scan.ss <= scan.se else {
                throw fail("the spectral band must satisfy 0 <= Ss <= Se <= 63")
            }
            guard scan.ss > 0 || scan.se == 0 else {
                throw fail("a scan holds either DC (0-0) or AC (from 1 up) coefficients, not both")
            }
            guard scan.ss == 0 || scan.components.count == 1 else {
                throw fail("an AC scan may carry only one component")
            }
            guard (0...Self.maximumBitPosition).contains(scan.ah), (0...Self.maximumBitPosition).contains(scan.al)
            else {
                throw fail("Ah and Al must be between 0 and \(Self.maximumBitPosition)")
            }
            for component in scan.components {
                if scan.ss > 0, lastAl[component][0] == nil {
                    throw fail("an AC scan of component \(component) must come after a DC scan of it")
                }
                for coefficient in scan.ss...scan.se {
                    if let previous = lastAl[component][coefficient] {
                        guard scan.ah == previous, scan.al == scan.ah - 1 else {
                            throw fail(
                                "coefficient \(coefficient) of component \(component) was sent down to bit \(previous); a refinement scan must have Ah = \(previous) and Al = \(previous - 1)"
                            )
                        }
                    } else {
                        guard scan.ah == 0 else {
                            throw fail(
                                "the first scan of coefficient \(coefficient) of component \(component) must have Ah = 0"
                            )
                        }
                    }
                    lastAl[component][coefficient] = scan.al
                }
            }
        }
        for component in 0..<componentCount {
            if let coefficient = lastAl[component].firstIndex(where: { $0 != 0 }) {
                let state = lastAl[component][coefficient].map { "sent only down to bit \($0)" } ?? "never sent"
                throw ScanScriptError(
                    scan: nil, text: "",
                    rule:
                        "coefficient \(coefficient) of component \(component) is \(state); every coefficient must be sent down to bit 0"
                )
            }
        }
    }
}

/// Why a scan script cannot be used: which scan, and the rule it breaks.
package struct ScanScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based number of the offending scan, or nil for the script as a whole.
    package var scan: Int?
    package var text: String
    package var rule: String

    package var description: String {
        guard let scan else { return rule }
        return "scan \(scan) (\"\(text)\"): \(rule)"
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first.isWhitespace { result.removeFirst() }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result
    }
}
