import LadderImaging
import LadderManifest

/// Holds each variant's recipe fingerprint to the one pipeline.json gives now: a variant made
/// with another recipe (another box, quality, script, background, kept metadata, renderer or
/// library) is what the next build makes again, so it is stale (`stale-recipe`). The problem
/// says what changed, from the description the manifest records for the old fingerprint.
struct RecipeCheck: Sendable {
    /// The current description of each variant's recipe, and its fingerprint, by variant name.
    let current: [String: (fingerprint: String, description: [String])]

    init(_ configuration: PipelineConfiguration, versions: Imaging.Versions = Imaging.versions) {
        var current: [String: (String, [String])] = [:]
        for recipe in configuration.variants {
            let description = RecipeFingerprint.description(
                recipe, background: configuration.background, keep: configuration.metadata.keep, versions: versions)
            current[recipe.name] = (RecipeFingerprint.of(description), description)
        }
        self.current = current
    }

    /// True when `entry` of variant `name` was made with the current recipe (or the variant has
    /// none in pipeline.json, which is reported as unknown).
    func isCurrent(_ name: String, _ entry: Manifest.VariantEntry) -> Bool {
        current[name].map { $0.fingerprint == entry.recipe } ?? true
    }

    /// Why `entry` of variant `name` is stale, or nil when it is current.
    func problem(
        _ name: String, _ entry: Manifest.VariantEntry, manifest: Manifest, label: String, image: String
    ) -> VerificationProblem? {
        guard let now = current[name], now.fingerprint != entry.recipe else { return nil }
        let change: String
        if let recorded = manifest.recipes?[entry.recipe] {
            if RecipeFingerprint.of(recorded) != entry.recipe {
                change = "the manifest's description of its recipe does not give its fingerprint"
            } else {
                change = Self.difference(from: recorded, to: now.description)
            }
        } else {
            let generator = manifest.generator
            let versions = [
                ("libvips", generator.libvips, now.description), ("libjpeg", generator.libjpeg, now.description),
                ("libexif", generator.libexif ?? "", now.description),
            ].compactMap { library, built, lines -> String? in
                let line = lines.first { $0.hasPrefix(library + " ") }
                let current = line.map { String($0.dropFirst(library.count + 1)) } ?? ""
                return built.isEmpty || built == current ? nil : "\(library) \(built) → \(current)"
            }
            change =
                versions.isEmpty
                ? "the manifest does not describe that recipe (an earlier ladder wrote it): pipeline.json's variant, its background or metadata.keep, or ladder's renderer changed"
                : versions.joined(separator: ", ")
        }
        return VerificationProblem(
            path: label, kind: .staleRecipe,
            message:
                "\(name) was made with another recipe (\(entry.recipe.prefix(8))) than pipeline.json gives now (\(now.fingerprint.prefix(8))): \(change); run ladder build",
            image: image)
    }

    /// What changed between two descriptions: each line ("quality 85") by its first word, as
    /// "quality 85 → 90"; lines only one of them has as "no longer …" and "now …".
    static func difference(from old: [String], to new: [String]) -> String {
        func split(_ line: String) -> (String, String) {
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
        }
        let before = Dictionary(old.map(split)) { first, _ in first }
        let after = Dictionary(new.map(split)) { first, _ in first }
        var changes: [String] = []
        for line in old {
            let (key, value) = split(line)
            if let now = after[key] {
                if now != value { changes.append("\(key) \(value) → \(now)") }
            } else {
                changes.append("no longer \(line)")
            }
        }
        for line in new where before[split(line).0] == nil { changes.append("now \(line)") }
        return changes.isEmpty ? "the same lines in another order" : changes.joined(separator: "; ")
    }
}
