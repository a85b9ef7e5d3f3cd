import Foundation
import LadderImaging
import LadderManifest

/// The image phase of `ladder verify`, one image at a time: every variant file is read once and
/// held to its manifest entry and its recipe (`VariantCheck`: integrity, shape, scans, metadata;
/// `ScanEndsCheck`; `RecipeCheck`) and its format siblings (`SiblingCheck`), then the placeholder to the variant it is made of
/// (`PlaceholderCheck`). The files read go on to the replay phase, their sizes to the source
/// facts check.
struct ImagePhase: Sendable {
    let configuration: PipelineConfiguration
    let outputLabel: String
    let manifestLabel: String
    let deep: Bool
    let recipes: [String: VariantRecipe]
    let recipeCheck: RecipeCheck
    let folders: OutputFolders
    let prefix: String
    let verdicts: PlaceholderVerdicts?
    let scripts = ScanScriptVerdicts()

    init(verifier: Verifier, output: Directory, verdicts: PlaceholderVerdicts?) {
        configuration = verifier.configuration
        outputLabel = verifier.outputLabel
        manifestLabel = verifier.manifestLabel
        deep = verifier.options.deep
        recipes = Dictionary(uniqueKeysWithValues: configuration.variants.map { ($0.name, $0) })
        recipeCheck = RecipeCheck(configuration)
        folders = OutputFolders(output)
        prefix = configuration.outputPrefixInManifest
        self.verdicts = verdicts
    }

    /// One variant file of an image, as read.
    struct Rung: Sendable {
        var recipe: VariantRecipe
        var entry: Manifest.VariantEntry
        var bytes: [UInt8]
        var sha256: String
    }

    /// What the phase found of one image.
    struct Result: Sendable {
        var problems: [VerificationProblem] = []
        /// The variant files read, by name.
        var rungs: [Rung] = []
        /// False when some file could not be read or must not be decoded: the image is then
        /// not replayed, and its placeholder not decoded.
        var decodable = true
        var facts = SourceFactsCheck.Image()
    }

    /// The checks of one image; `unsafe` holds the keys ("<sha1>/<variant>") of its variants
    /// whose paths are unsafe, which are never opened. `manifest` is the manifest's top level
    /// (its recipes and generator).
    func check(_ key: String, _ entry: Manifest.ImageEntry, manifest: Manifest, unsafe: Set<String>) -> Result {
        var result = Result()
        let source = entry.sources.min()
        for name in recipes.keys.sorted() where entry.variants[name] == nil {
            result.problems.append(
                VerificationProblem(
                    path: manifestLabel, kind: .missingVariant,
                    message: "image \(source ?? key) has no \(name) variant; run ladder build", image: key))
        }
        for name in entry.variants.keys.sorted() {
            guard let variant = entry.variants[name], unsafe.isEmpty || !unsafe.contains(key + "/" + name) else {
                continue
            }
            checkVariant(name, variant, key: key, manifest: manifest, into: &result)
        }
        // The placeholder is made of the smallest variant: checked against it when that file was
        // read, may be decoded and was made with the current recipe (else its own problem says
        // why it cannot vouch for the placeholder).
        let made = PlaceholderInput.source(
            of: entry.variants.map { (name: $0.key, width: $0.value.width, height: $0.value.height, variant: ()) })
        let rung = made.flatMap { made in result.rungs.first { $0.recipe.name == made.name } }
        let vouches = rung.map { result.decodable && recipeCheck.isCurrent($0.recipe.name, $0.entry) } ?? false
        result.problems += PlaceholderCheck(
            entry: entry, thumbnail: vouches ? rung.map { (label($0.entry.path), $0.bytes, $0.sha256) } : nil,
            verdicts: verdicts, manifestLabel: manifestLabel, image: key
        ).problems()
        return result
    }

    /// The checks of one variant's file.
    private func checkVariant(
        _ name: String, _ variant: Manifest.VariantEntry, key: String, manifest: Manifest, into result: inout Result
    ) {
        let label = label(variant.path)
        func problem(_ kind: ProblemKind, _ message: String) {
            result.problems.append(VerificationProblem(path: label, kind: kind, message: message, image: key))
        }
        guard let relative = relative(variant.path) else {
            problem(.unsafePath, "the path lies outside the output folder \(outputLabel)")
            return
        }
        guard let recipe = recipes[name] else {
            problem(.unknownVariant, "pipeline.json has no variant \(name)")
            return
        }
        if let stale = recipeCheck.problem(name, variant, manifest: manifest, label: label, image: key) {
            result.problems.append(stale)
            result.facts.stale.insert(name)
        }
        guard let bytes = read(relative, label: label, recorded: variant.bytes, problem: problem) else {
            result.decodable = false
            return
        }
        var check = VariantCheck(
            recipe: recipe, entry: variant, bytes: bytes, keep: configuration.metadata.keep, label: label, image: key)
        check.limits = configuration.limits
        check.deep = deep
        check.scripts = scripts
        let outcome = check.check()
        result.problems += outcome.problems
        result.problems += ScanEndsCheck(
            entry: variant, bytes: bytes, structure: outcome.structure, label: label, image: key
        ).problems()
        result.decodable = result.decodable && outcome.decodable
        if let structure = outcome.structure {
            result.facts.frames[name] = PixelSize(width: structure.width, height: structure.height)
            result.facts.labels[name] = label
        }
        result.rungs.append(Rung(recipe: recipe, entry: variant, bytes: bytes, sha256: outcome.sha256))
        if variant.formats?.isEmpty == false {
            result.problems += SiblingCheck(recipe: recipe, rung: variant, image: key, phase: self).problems()
        }
    }

    /// Reads the file at `relative` (inside the output folder), never more than the build would
    /// read: a file replaced by a huge one is refused by its size before it is read. nil, with
    /// its problem, when it cannot be read.
    func read(
        _ relative: String, label: String, recorded: Int, problem: (ProblemKind, String) -> Void
    ) -> [UInt8]? {
        do {
            let (folder, name) = try folders.folder(of: relative)
            return try folder.readFile(name, limit: configuration.limits.maxFileBytes)
        } catch {
            switch error.code {
            case ENOENT: problem(.missing, "the file does not exist")
            case 0 where error.reason.contains("over the limit"):
                problem(
                    .overLimits,
                    "\(error.reason) (limits.maxFileBytes); not read, the manifest says \(recorded) bytes")
            case 0: problem(.missing, error.reason)
            default: problem(.unreadable, error.reason)
            }
            return nil
        }
    }

    /// A manifest path relative to the output folder; nil when it lies outside.
    func relative(_ path: String) -> String? {
        prefix.isEmpty ? path : FilePath.relative(path, to: prefix)
    }

    /// How problems name a manifest path: the output folder as the user wrote it, then the file.
    func label(_ path: String) -> String {
        relative(path).map { outputLabel + "/" + $0 } ?? path
    }
}
