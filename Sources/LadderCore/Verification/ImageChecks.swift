import LadderManifest
import Synchronization

/// Every check of one image, as the manifest streams past (`Verifier`): its paths
/// (`ManifestPhase.unsafePaths`), the image phase, the replay and budget phases, and its recorded
/// facts held to its source (`SourceFactsCheck`), run on any thread. What the whole-catalogue
/// checks need afterwards is kept, and only that: each source path's image (the source phase),
/// each image's files (the orphan phase), its first source (for reports) and the counts.
final class ImageChecks: Sendable {
    let verifier: Verifier
    /// The manifest's top level: its recipes, generator, failures.
    let header: Manifest
    let images: ImagePhase
    let replays: ReplayPhase
    let budgets: BudgetPhase
    let orphans: OrphanPhase
    let manifestPhase: ManifestPhase
    /// The current sources, all hashed, and their indexes by SHA-1; nil when the walk failed.
    let digests: SourceDigests?
    let filesBySHA1: [String: [Int]]
    let facts: SourceFactsCheck

    struct Found: Sendable {
        var problems: [VerificationProblem] = []
        var replays: [ImageReplay] = []
        var variants = 0
        var sourceNames: [String: String] = [:]
        /// Each source path the images name (as bytes), with its image's key.
        var listed: [[UInt8]: String] = [:]
        /// The images' files, relative to the output folder.
        var known = PathSet()
    }

    let found = Mutex(Found())

    init(
        verifier: Verifier, header: Manifest, output: Directory, digests: SourceDigests?, cache: ReplayCache?,
        verdicts: PlaceholderVerdicts?
    ) {
        self.verifier = verifier
        self.header = header
        let configuration = verifier.configuration
        images = ImagePhase(verifier: verifier, output: output, verdicts: verdicts)
        replays = ReplayPhase(
            configuration: configuration, outputLabel: verifier.outputLabel, options: verifier.options, cache: cache)
        budgets = BudgetPhase(configuration: configuration, profiles: verifier.options.profiles)
        orphans = OrphanPhase(configuration: configuration, outputLabel: verifier.outputLabel)
        manifestPhase = ManifestPhase(configuration: configuration, manifestLabel: verifier.manifestLabel)
        self.digests = digests
        filesBySHA1 = digests.map { SourcePhase(configuration: configuration).filesBySHA1($0) } ?? [:]
        facts = SourceFactsCheck(
            configuration: configuration, manifestLabel: verifier.manifestLabel, deep: verifier.options.deep)
    }

    func check(_ key: String, _ entry: Manifest.ImageEntry) {
        let unsafe = manifestPhase.unsafePaths(key, entry)
        let checked = images.check(key, entry, manifest: header, unsafe: unsafe.keys)
        var problems = unsafe.problems + checked.problems
        var replay: ImageReplay?
        let options = verifier.options
        // An image with a file that must not be decoded (over its box or the limits) is not
        // replayed: its problem is already reported, and a replay would decode it.
        if options.replays(verifier.configuration), checked.decodable,
            let replayed = replays.replay(key, rungs: checked.rungs)
        {
            let source = entry.sources.min()
            let (timelines, over) = budgets.check(key, source: source, label: replayed.label, rungs: replayed.rungs)
            problems += replayed.problems + over
            if options.replay || !timelines.isEmpty {
                replay = ImageReplay(
                    image: key, source: source, variant: replayed.variant, report: replayed.report,
                    timelines: timelines)
            }
        }
        if let digests,
            let (file, read) = SourcePhase(configuration: verifier.configuration).representative(
                key, entry, digests, files: filesBySHA1)
        {
            problems += facts.problems(key, entry, image: checked.facts, source: file, header: read)
        }
        let paths = orphans.paths(of: entry)
        found.withLock { found in
            found.problems += problems
            if let replay { found.replays.append(replay) }
            found.variants += entry.variants.count
            if options.namesImages, let first = entry.sources.min() { found.sourceNames[key] = first }
            for path in entry.sources { found.listed[Array(path.utf8)] = key }
            found.known.formUnion(paths)
        }
    }
}
