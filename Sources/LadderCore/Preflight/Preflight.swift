import Foundation
import LadderImaging
import Synchronization

/// `ladder check`: looks at every source the way a build would, and writes nothing.
///
/// Each source is read, hashed and decoded in full under the pipeline's limits and strictness
/// (with shrink-on-load, to a small probe picture, so it costs a fraction of a build); what the
/// decoder found out becomes findings a designer can act on, each with a fix.
package struct Preflight: Sendable {
    package let configuration: PipelineConfiguration
    /// The render workers, which decode every source (as a build's do).
    let workers: WorkerPool
    let observer: (any BuildObserving)?
    let jobs: Int
    /// Report personal data in the originals as warnings rather than info, for teams that
    /// want the originals themselves clean.
    let strict: Bool

    /// The picture each source is decoded to: small, so that the decode is all the work.
    static let probe = VariantRecipe(name: "check", maxWidth: 64, maxHeight: 64, quality: 50)

    package init(
        configuration: PipelineConfiguration, workers: WorkerPool,
        observer: (any BuildObserving)? = nil, jobs: Int = Defaults.jobs, strict: Bool = false
    ) {
        self.strict = strict
        self.configuration = configuration
        self.workers = workers
        self.observer = observer
        self.jobs = jobs
    }

    /// Checks every source of the pipeline or, when `paths` are given (relative to the current
    /// folder, as a pre-commit hook passes staged files), those files only.
    package func run(paths: [String]? = nil) throws(FileSystemError) -> PreflightReport {
        var findings: [String: [Finding]] = [:]
        let files: [SourceFile]
        if let paths {
            files = paths.map(Self.commandLineFile)
            for file in files where !isInsideSources(file.absolutePath) {
                findings[file.path, default: []].append(
                    Finding(
                        .warning, .outsideSources,
                        "not inside any source folder of pipeline.json: builds will not see it",
                        fix: "move it into one of: \(configuration.sources.joined(separator: ", "))"))
            }
        } else {
            let walk = try SourceWalker(configuration: configuration).walk()
            files = walk.files
            for warning in walk.warnings {
                findings[warning.path, default: []].append(
                    Finding(
                        .warning, .skipped, warning.message,
                        fix: "if ladder should build it, make it a regular file with a unique name in a source folder"))
            }
        }

        let settings = RenderSettings(
            background: configuration.background, keep: configuration.metadata.keep, limits: configuration.limits)
        let results = Mutex<[String: (sha1: String?, findings: [Finding])]>([:])
        if !files.isEmpty { workers.prepare() }
        observer?.buildStarted(total: files.count)
        ParallelRunner.run(count: files.count, width: max(1, jobs) * 2) { index in
            let file = files[index]
            let (sha1, found) = self.check(file, settings: settings)
            results.withLock { $0[file.path] = (sha1, found) }
            let error = found.first { $0.severity == .error }
            self.observer?.sourceFinished(file.path, outcome: error.map { .failed($0.message) } ?? .built)
            return true
        }
        let checked = results.withLock { $0 }
        for (path, result) in checked { findings[path, default: []] += result.findings }

        // Identical bytes under several names.
        let bySHA1 = Dictionary(grouping: checked.compactMap { path, result in result.sha1.map { ($0, path) } }) {
            $0.0
        }
        for group in bySHA1.values where group.count > 1 {
            let paths = group.map(\.1).sorted()
            for path in paths {
                let others = paths.filter { $0 != path }
                findings[path, default: []].append(
                    Finding(
                        .warning, .duplicate,
                        "the same bytes as \(others.joined(separator: ", ")): one manifest entry lists them all, and the variants are made once",
                        fix: "delete the copies that are not meant"))
            }
        }

        if strict {
            for path in findings.keys {
                for index in findings[path]!.indices where findings[path]![index].severity == .info {
                    findings[path]![index].severity = .warning
                }
            }
        }
        return PreflightReport(
            sources: files.count,
            files: findings.filter { !$0.value.isEmpty }.keys.sorted().map { path in
                PreflightReport.FileFindings(
                    path: path,
                    findings: findings[path]!.sorted {
                        ($0.severity, $0.kind.rawValue) < ($1.severity, $1.kind.rawValue)
                    })
            })
    }

    // MARK: - One source

    private func check(_ file: SourceFile, settings: RenderSettings) -> (sha1: String?, findings: [Finding]) {
        let bytes: [UInt8]
        do {
            bytes = try Directory.readFile(atPath: file.absolutePath, limit: configuration.limits.maxFileBytes)
        } catch {
            let overLimit = error.reason.contains("over the limit")
            return (
                nil,
                [
                    Finding(
                        .error, overLimit ? .overLimits : .unreadable, error.reason,
                        fix: overLimit
                            ? "make the file smaller, or raise limits.maxFileBytes in pipeline.json"
                            : "check that the file exists and can be read")
                ]
            )
        }
        let sha1 = Checksum.hex(.sha1, of: bytes)
        var facts: SourceFacts
        do {
            facts = try workers.render(bytes, variants: [Self.probe], settings: settings).facts
        } catch {
            return (sha1, [Self.failure(error.reason)])
        }
        // Thermal cameras keep their GPS fix in segments of their own, which no decoder reads.
        if facts.gpsPosition == nil, facts.format == "jpeg" {
            facts.gpsPosition = FLIRRecords.gpsPosition(inJPEG: bytes)
        }
        return (sha1, findings(about: facts, path: file.path))
    }

    static func failure(_ reason: String) -> Finding {
        if reason.contains("Unsupported") || reason.contains("not supported") || reason.contains("no enabled decoder") {
            return Finding(
                .error, .unsupported, "a kind of image ladder's decoders do not read: \(reason)",
                fix: "export it as an 8-bit JPEG, PNG or WebP")
        }
        if reason.hasPrefix("not an image") {
            return Finding(
                .error, .notAnImage, reason,
                fix: "replace it with an image, or leave it out with exclude in pipeline.json")
        }
        if reason.contains("(limits.") || reason.contains("(decoding.") {
            return Finding(
                .error, .overLimits, reason, fix: "make the image smaller, or raise that limit in pipeline.json")
        }
        return Finding(
            .error, .damaged, "cannot be decoded cleanly: \(reason)",
            fix: "export it again from the original; ladder refuses files its decoder warns about (decoding.failOn)")
    }

    func findings(about facts: SourceFacts, path: String) -> [Finding] {
        var findings: [Finding] = []
        let size = facts.size
        // Variants whose box the source fits inside without touching a side: they keep its size.
        let upscaled = configuration.variants.filter { size.width < $0.maxWidth && size.height < $0.maxHeight }

        if !upscaled.isEmpty, upscaled.count == configuration.variants.count,
            let smallest = configuration.variants.min(by: { $0.box.pixelCount < $1.box.pixelCount })
        {
            findings.append(
                Finding(
                    .warning, .tiny,
                    "\(size) is smaller than even \(smallest.name) (\(smallest.box)): every variant will be \(size)",
                    fix: "use a larger original"))
        } else if let largest = upscaled.max(by: { $0.box.pixelCount < $1.box.pixelCount }) {
            findings.append(
                Finding(
                    .warning, .notUpscaled,
                    "\(size) is smaller than \(largest.name) (\(largest.box)): it will be \(size), not upscaled",
                    fix:
                        "export the original at \(max(largest.maxWidth, largest.maxHeight)) pixels on its long side or more"
                ))
        }
        if facts.colorSpace == "cmyk" {
            findings.append(
                Finding(
                    .warning, .cmyk, "CMYK: the colors will be converted to sRGB, and may shift",
                    fix: "export it as sRGB from the application that made it, to see the colors it will have"))
        }
        if facts.wideGamut {
            findings.append(
                Finding(
                    .warning, .wideGamut,
                    "its color profile (\(facts.profileName ?? "unnamed")) is wider than sRGB: colors outside sRGB will be brought inside it",
                    fix: "export it as sRGB to choose how they are mapped, or accept the conversion"))
        }
        // Personal data stays in the original only: info, not a warning, since the variants
        // come out the same. Which fields, never what they hold.
        if facts.gpsPosition != nil {
            findings.append(
                Finding(
                    .info, .gps, "the original carries the GPS position where it was taken; the variants do not",
                    fix: "remove it from the original before sharing the original itself"))
        }
        if !facts.personalMetadata.isEmpty {
            findings.append(
                Finding(
                    .info, .personalMetadata,
                    "the original names people, places or the camera in \(facts.personalMetadata.joined(separator: ", ")); the variants do not",
                    fix: "remove them from the original before sharing the original itself"))
        }
        if facts.isTransparent {
            findings.append(
                Finding(
                    .warning, .alpha,
                    "has transparency: it will be flattened on \(configuration.background) (background in pipeline.json)",
                    fix: "export it without transparency, or set background to the color it will be shown on"))
        }
        if facts.pages > 1 {
            findings.append(
                Finding(
                    .warning, .animated, "has \(facts.pages) pages or frames: only the first is used",
                    fix: "export the frame you want as a still image"))
        }
        if let format = ImageFormat(rawValue: facts.format),
            let mismatch = SourceWarning.extensionMismatch(path: path, format: format)
        {
            findings.append(
                Finding(
                    .warning, .misnamed, mismatch.message,
                    fix: "rename it to .\(format.preferredExtension), so that other tools and web servers agree"))
        }
        return findings
    }

    // MARK: - Files named on the command line

    static func commandLineFile(_ path: String) -> SourceFile {
        let absolute = FilePath.join(FileManager.default.currentDirectoryPath, path)
        let status =
            Directory.status(atPath: absolute)
            ?? FileStatus(kind: .other, device: 0, inode: 0, size: 0, modified: 0, changed: 0)
        return SourceFile(path: path, absolutePath: absolute, status: status)
    }

    private func isInsideSources(_ absolutePath: String) -> Bool {
        configuration.sources.contains { source in
            FilePath.relative(absolutePath, to: configuration.resolve(source)) != nil
        }
    }
}
