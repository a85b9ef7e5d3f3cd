import LadderImaging
import LadderManifest
import Synchronization

/// The Render phase: makes what the work list asks for. Each source is read again, by the worker
/// process that renders it, and checked against the SHA1 it was planned with; then each variant
/// file is written under its content address atomically (temporary name, flush, rename): until
/// the Commit phase names them in the manifest, they are files nobody uses.
struct RenderPhase {
    let configuration: PipelineConfiguration
    let workers: WorkerPool
    let observer: (any BuildObserving)?
    let folders: OutputFolders
    let fingerprints: [String: String]
    /// What the renders depended on besides the bytes, to remember failures by.
    let attempt: String
    let jobs: Int

    /// What the renders made.
    struct Result: Sendable {
        /// New entries (without sources), by SHA1.
        var entries: [String: Manifest.ImageEntry] = [:]
        /// Why contents failed, by SHA1.
        var failures: [String: String] = [:]
        /// Failures to skip while nothing they depended on changes.
        var failureMemory = FailureMemory()
        var touchedFolders: Set<String> = []
        var filesWritten = 0
        /// Format siblings written, and those not written because they were not smaller than
        /// their JPEG, by format.
        var siblingsWritten: [SiblingFormat: Int] = [:]
        var siblingsSkipped: [SiblingFormat: Int] = [:]
        var fatal: FileSystemError?
    }

    /// The variant files (relative to the output folder) that rendering `work` will write.
    static func plannedFiles(
        _ work: WorkList, fingerprints: [String: String], formats: [String: [SiblingFormat]]
    ) -> Set<String> {
        var files: Set<String> = []
        for item in work.items {
            guard case .render(let plan) = item.action else { continue }
            for name in plan.render {
                let fingerprint = fingerprints[name] ?? ""
                files.insert(ContentAddress.path(sha1: item.sha1, variant: name, fingerprint: fingerprint))
                for format in formats[name] ?? [] {
                    files.insert(
                        ContentAddress.path(sha1: item.sha1, variant: name, fingerprint: fingerprint, format: format))
                }
            }
        }
        return files
    }

    /// Renders every item of `work` that needs it, largest first, and returns what was made;
    /// `finished` is told about each item done.
    func run(
        _ work: WorkList, files: [SourceFile], finished: @escaping @Sendable (Int, SourceOutcome) -> Void
    ) throws -> Result {
        let renders = work.items.compactMap { item -> (WorkList.Item, ImagePlan)? in
            if case .render(let plan) = item.action { return (item, plan) }
            return nil
        }
        let pixels = Self.expectedPixels(renders.map { files[$0.0.source] })
        let order = renders.indices.sorted { pixels[$0] > pixels[$1] }
        let state = Mutex(Result())
        // Twice as many threads as jobs, so that writing one source's variants overlaps with
        // rendering another (the worker pool limits renders to its workers).
        ParallelRunner.run(count: renders.count, width: jobs * 2) { position in
            let (item, plan) = renders[order[position]]
            do {
                let outcome = try render(
                    item, plan: plan, file: files[item.source], pixels: pixels[order[position]], state: state)
                finished(item.source, outcome)
                return true
            } catch let error as FileSystemError {
                state.withLock { $0.fatal = $0.fatal ?? error }
            } catch {
                let path = files[item.source].path
                state.withLock {
                    $0.fatal = $0.fatal ?? FileSystemError(operation: "build", path: path, code: 0, reason: "\(error)")
                }
            }
            return false
        }
        let result = state.withLock { $0 }
        if let fatal = result.fatal { throw fatal }
        return result
    }

    private func render(
        _ item: WorkList.Item, plan: ImagePlan, file: SourceFile, pixels: Int, state: borrowing Mutex<Result>
    ) throws -> SourceOutcome {
        let sha1 = item.sha1
        let rendered: RenderedSource
        let sourceBytes: Int
        do {
            var names = plan.render
            // A script chosen for what the screen shows is chosen with the rung shown before it
            // on screen: that rung is rendered again (the same bytes) when only the chosen
            // variant is stale, or the choice would be made on an empty screen.
            for name in plan.render {
                let recipe = configuration.variants.first { $0.name == name }
                if let rung = recipe?.progressive?.automatic?.firstRung, !names.contains(rung) { names.append(rung) }
            }
            let recipes = names.compactMap { name in configuration.variants.first { $0.name == name } }
            (rendered, sourceBytes) = try workers.render(
                file: file.absolutePath, sha1: sha1, pixels: pixels, variants: recipes, settings: settings)
        } catch let failure {
            return fail(sha1, failure.reason, remember: failure.concernsTheSource, state: state)
        }

        let prefix = configuration.outputPrefixInManifest
        var variants = plan.reuse
        // A first rung rendered again only for the choice (see above) is kept as it was.
        for variant in rendered.variants where plan.render.contains(variant.name) {
            let fingerprint = fingerprints[variant.name] ?? ""
            let relative = ContentAddress.path(sha1: sha1, variant: variant.name, fingerprint: fingerprint)
            let (folderName, fileName) = ContentAddress.split(relative)!
            let folder = try folders.folder(folderName, create: true)
            try folder.writeAtomically(variant.bytes, to: fileName)
            var siblings: [String: Manifest.FormatEntry] = [:]
            for sibling in variant.siblings {
                let path = ContentAddress.path(
                    sha1: sha1, variant: variant.name, fingerprint: fingerprint, format: sibling.format)
                try folder.writeAtomically(sibling.bytes, to: ContentAddress.split(path)!.name)
                siblings[sibling.format.rawValue] = Manifest.FormatEntry(
                    path: prefix.isEmpty ? path : prefix + "/" + path, bytes: sibling.bytes.count,
                    sha256: Checksum.hex(.sha256, of: sibling.bytes))
            }
            variants[variant.name] = Manifest.VariantEntry(
                path: prefix.isEmpty ? relative : prefix + "/" + relative, width: variant.size.width,
                height: variant.size.height, bytes: variant.bytes.count,
                sha256: Checksum.hex(.sha256, of: variant.bytes),
                progressive: variant.progressive, scans: variant.scans, recipe: fingerprint,
                scanEnds: variant.progressive ? JPEGStructure.scanEnds(of: variant.bytes) : nil,
                script: variant.script?.description, formats: siblings.isEmpty ? nil : siblings)
            if let advice = variant.budgetAdvice { observer?.warning("\(file.path): \(variant.name): \(advice)") }
            state.withLock {
                $0.touchedFolders.insert(folderName)
                $0.filesWritten += 1 + variant.siblings.count
                for sibling in variant.siblings { $0.siblingsWritten[sibling.format, default: 0] += 1 }
                for format in variant.skippedSiblings { $0.siblingsSkipped[format, default: 0] += 1 }
            }
        }
        let facts = rendered.facts
        var entry = Manifest.ImageEntry(
            sources: [], width: facts.size.width, height: facts.size.height, variants: variants,
            format: facts.format, bytes: sourceBytes, orientation: facts.orientation,
            captured: facts.captured, gpsRemoved: facts.hadGPS,
            placeholder: facts.placeholder?.thumbHash, averageColor: facts.placeholder?.averageColor,
            hasAlpha: facts.isTransparent)
        if let kept = plan.kept, kept.placeholder != nil {
            // Same bytes, same picture: what was made of a variant kept as it was stays. The
            // placeholder is made of the smallest variant's file, transparency is seen in the
            // decode to the largest variant's size.
            let made = Set(rendered.variants.map(\.name)).intersection(plan.render)
            let bySize = variants.map { (name: $0.key, width: $0.value.width, height: $0.value.height, variant: ()) }
            if let smallest = PlaceholderInput.source(of: bySize), !made.contains(smallest.name) {
                entry.placeholder = kept.placeholder
                entry.averageColor = kept.averageColor
            }
            let largest = bySize.max { $0.width * $0.height < $1.width * $1.height }
            if let largest, !made.contains(largest.name) { entry.hasAlpha = kept.hasAlpha }
        }
        state.withLock { $0.entries[sha1] = entry }
        return .built
    }

    /// Records that the content `sha1` failed, remembered for the next builds when `remember`.
    private func fail(
        _ sha1: String, _ reason: String, remember: Bool, state: borrowing Mutex<Result>
    ) -> SourceOutcome {
        state.withLock {
            $0.failures[sha1] = reason
            if remember { $0.failureMemory.bySHA1[sha1] = FailureMemory.Failure(attempt: attempt, reason: reason) }
        }
        return .failed(reason)
    }

    private var settings: RenderSettings {
        RenderSettings(
            background: configuration.background, keep: configuration.metadata.keep, limits: configuration.limits)
    }

    /// What each source is expected to decode to, in pixels: read from the first bytes of its
    /// header, or, when they do not say, its compressed size taken as about 4:1. Sources are
    /// rendered largest first, so that the last to finish are small ones and no core idles at
    /// the end, and the worker pool admits them against its pixel budget.
    static func expectedPixels(_ files: [SourceFile]) -> [Int] {
        files.map { file -> Int in
            let head = (try? Directory.open(FilePath.parent(file.absolutePath)))
                .flatMap { try? $0.readPrefix(FilePath.name(file.absolutePath), count: 64 << 10) }
            return head.flatMap(ImageDimensions.peek).map { $0.width * $0.height } ?? file.status.size * 4
        }
    }
}
