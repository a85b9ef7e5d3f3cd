package import LadderManifest

/// What to do for one source content.
package struct ImagePlan: Sendable, Equatable {
    /// Variants whose files from the previous build are kept, by name.
    package var reuse: [String: Manifest.VariantEntry]
    /// Variants to make, by name, sorted.
    package var render: [String]
    /// The previous entry, when some of its variants are kept: its placeholder is kept too, so
    /// that remaking one variant does not change it.
    package var kept: Manifest.ImageEntry?

    package var isUpToDate: Bool { render.isEmpty }

    /// Two plans are equal when they keep and make the same variants.
    package static func == (lhs: ImagePlan, rhs: ImagePlan) -> Bool {
        lhs.reuse == rhs.reuse && lhs.render == rhs.render
    }

    package init(reuse: [String: Manifest.VariantEntry], render: [String]) {
        self.reuse = reuse
        self.render = render
    }
}

/// Decides what each source needs, from the previous manifest alone: no file is read and no
/// image decoded.
package enum Planner {
    /// Plans one source content.
    ///
    /// - Parameters:
    ///   - previous: the previous manifest's entry for the same SHA1, if any.
    ///   - fingerprints: the current recipe fingerprint of every variant, by name.
    ///   - fileIsPresent: whether a previously written variant file is still there as recorded.
    ///
    /// A progressive variant recorded without `scanEnds` (by a ladder that did not write them)
    /// is made again, so that every manifest entry has them.
    package static func plan(
        previous: Manifest.ImageEntry?, fingerprints: [String: String],
        fileIsPresent: (Manifest.VariantEntry) -> Bool
    ) -> ImagePlan {
        var reuse: [String: Manifest.VariantEntry] = [:]
        var render: [String] = []
        for (name, fingerprint) in fingerprints.sorted(by: { $0.key < $1.key }) {
            if let entry = previous?.variants[name], entry.recipe == fingerprint, !entry.lacksScanEnds,
                fileIsPresent(entry)
            {
                reuse[name] = entry
            } else {
                render.append(name)
            }
        }
        var plan = ImagePlan(reuse: reuse, render: render)
        if !reuse.isEmpty { plan.kept = previous }
        return plan
    }
}
