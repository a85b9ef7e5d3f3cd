import Foundation
package import LadderImaging
package import LadderManifest

/// What a manifest's format siblings save against its JPEG rungs, per variant and in total:
/// for each format, the bytes a client that decodes it fetches (the sibling where there is one,
/// the JPEG where it was skipped as not smaller) against the JPEG rungs' bytes. `ladder check`
/// prints it for the last build, and the build report shows it.
package struct FormatSavings: Sendable, Equatable {
    /// One format over a set of rungs.
    package struct Saving: Sendable, Equatable {
        /// Rungs that have a sibling in the format.
        package var siblings: Int
        /// Rungs considered (every rung of the variant, or of the manifest for the total).
        package var rungs: Int
        /// The JPEG rungs' bytes.
        package var jpegBytes: Int
        /// What a client of this format fetches: each sibling, or the JPEG where there is none.
        package var servedBytes: Int

        /// Bytes saved against the JPEG rungs.
        package var savedBytes: Int { jpegBytes - servedBytes }
        /// The saved share of the JPEG rungs' bytes, 0...1.
        package var savedShare: Double { jpegBytes > 0 ? Double(savedBytes) / Double(jpegBytes) : 0 }
    }

    /// By variant name, then format; only formats some rung of the variant has.
    package var byVariant: [String: [SiblingFormat: Saving]]
    /// Over every variant, by format.
    package var total: [SiblingFormat: Saving]

    package var isEmpty: Bool { total.isEmpty }

    package init(_ manifest: Manifest) {
        var byVariant: [String: [SiblingFormat: Saving]] = [:]
        var rungs: [String: (count: Int, bytes: Int)] = [:]
        for entry in manifest.images.values {
            for (name, variant) in entry.variants {
                rungs[name, default: (0, 0)].count += 1
                rungs[name, default: (0, 0)].bytes += variant.bytes
                for (formatName, sibling) in variant.formats ?? [:] {
                    guard let format = SiblingFormat(rawValue: formatName) else { continue }
                    var saving =
                        byVariant[name, default: [:]][format]
                        ?? Saving(siblings: 0, rungs: 0, jpegBytes: 0, servedBytes: 0)
                    saving.siblings += 1
                    // Counted as the JPEG's bytes less what the sibling saves; the JPEG total is
                    // added below.
                    saving.servedBytes -= variant.bytes - sibling.bytes
                    byVariant[name, default: [:]][format] = saving
                }
            }
        }
        var total: [SiblingFormat: Saving] = [:]
        for (name, formats) in byVariant {
            for (format, var saving) in formats {
                saving.rungs = rungs[name]?.count ?? 0
                saving.jpegBytes = rungs[name]?.bytes ?? 0
                saving.servedBytes += saving.jpegBytes
                byVariant[name]?[format] = saving
            }
        }
        for format in SiblingFormat.allCases {
            let savings = byVariant.values.compactMap { $0[format] }
            guard !savings.isEmpty else { continue }
            let allRungs = rungs.values.reduce(0) { $0 + $1.count }
            let allBytes = rungs.values.reduce(0) { $0 + $1.bytes }
            let saved = savings.reduce(0) { $0 + $1.savedBytes }
            total[format] = Saving(
                siblings: savings.reduce(0) { $0 + $1.siblings }, rungs: allRungs, jpegBytes: allBytes,
                servedBytes: allBytes - saved)
        }
        self.byVariant = byVariant
        self.total = total
    }

    /// One line per variant and one for the total: "small_thumb: webp 18 of 20, 41.2 kB less
    /// (23.1 %); avif ...".
    package func lines(bytes: (Int) -> String) -> [String] {
        func describe(_ savings: [SiblingFormat: Saving]) -> String {
            savings.keys.sorted().map { format in
                let saving = savings[format]!
                return
                    "\(format.rawValue) \(saving.siblings) of \(saving.rungs), \(bytes(saving.savedBytes)) less (\(Self.percent(saving.savedShare)))"
            }.joined(separator: "; ")
        }
        return byVariant.keys.sorted().map { "\($0): \(describe(byVariant[$0]!))" } + [
            "all variants: \(describe(total))"
        ]
    }

    /// A share as a percentage with one decimal: "23.1 %".
    package static func percent(_ share: Double) -> String {
        String(format: "%.1f %%", share * 100)
    }
}
