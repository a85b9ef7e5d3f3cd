import LadderImaging
import LadderManifest

/// The source phase of `ladder verify`: the current source files are walked and hashed (while
/// the manifest is read), then held to the manifest: every source is built under its current
/// SHA1 or accounted for as failed, and every source the manifest lists still exists.
struct SourcePhase {
    let configuration: PipelineConfiguration

    /// The current source files, to be hashed by `SourceDigests.hashNext()`, or the problem
    /// that stops the walk.
    func walk() -> Verifier.Step<SourceDigests> {
        do {
            let files = try SourceWalker(configuration: configuration).walk().files
            return .done(SourceDigests(files: files, formats: configuration.limits.formats))
        } catch {
            return .stopped(VerificationProblem(path: error.path, kind: .sourceUnreadable, message: error.description))
        }
    }

    /// Every current source must be in the manifest under its current content, and every
    /// source the manifest names must still be there; a source that failed to build is a problem.
    /// `listed` gives each source path the manifest's images name (by its bytes: Swift's strings
    /// compare names that differ only by Unicode normalization equal, while they are two files
    /// here, see `SourceWalker`) the image's key.
    func problems(_ manifest: Manifest, listed: [[UInt8]: String], _ digests: SourceDigests) -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        let files = digests.files
        // How many of the sources the manifest names (its images' and its failures') are here:
        // when all of them are, none is missing, and no set of every path is built to find one.
        let failed = Set(manifest.failures.keys.map { Array($0.utf8) })
        var namedHere = 0
        for (file, digest) in zip(files, digests.results) {
            let path = Array(file.path.utf8)
            let recorded = listed[path]
            if recorded != nil || failed.contains(path) { namedHere += 1 }
            switch digest {
            case .failure(let error)?:
                problems.append(
                    VerificationProblem(path: file.path, kind: .sourceUnreadable, message: error.description))
            case .success(let sha1)?:
                if manifest.failures[file.path] != nil {
                    // Accounted for, while it has the bytes that failed: the build said why.
                    if let failed = manifest.failureSHA1?[file.path], failed != sha1 {
                        problems.append(
                            VerificationProblem(
                                path: file.path, kind: .stale,
                                message: "the source failed to build and has changed since; run ladder build"))
                    }
                    continue
                }
                if recorded == sha1 {
                    continue
                } else if recorded != nil {
                    problems.append(
                        VerificationProblem(
                            path: file.path, kind: .stale,
                            message: "the source changed since the build; run ladder build"
                        ))
                } else {
                    problems.append(
                        VerificationProblem(
                            path: file.path, kind: .stale,
                            message: "the source was added since the build; run ladder build"))
                }
            case nil:
                continue
            }
        }
        if namedHere == listed.count + failed.count(where: { listed[$0] == nil }) { return problems }
        let present = Set(files.map { Array($0.path.utf8) })
        let named = Set(listed.keys).union(failed)
        for path in named where !present.contains(path) {
            problems.append(
                VerificationProblem(
                    path: String(decoding: path, as: UTF8.self), kind: .stale,
                    message: "the manifest lists a source that no longer exists; run ladder build",
                    image: listed[path]))
        }
        return problems
    }

    /// The current files by their SHA-1, each list in the walk's order (by path).
    func filesBySHA1(_ digests: SourceDigests) -> [String: [Int]] {
        var found: [String: [Int]] = [:]
        for (index, digest) in digests.results.enumerated() {
            if case .success(let sha1)? = digest { found[sha1, default: []].append(index) }
        }
        return found
    }

    /// The first of an image's sources (by path) that still has its bytes, with what its header
    /// said: what its sizes and transparency are held to. `files` is `filesBySHA1(digests)`.
    func representative(
        _ key: String, _ entry: Manifest.ImageEntry, _ digests: SourceDigests, files: [String: [Int]]
    ) -> (SourceFile, SourceHeader.Read)? {
        for index in files[key] ?? [] {
            let file = digests.files[index]
            guard entry.sources.contains(file.path), let header = digests.header(at: index) else { continue }
            return (file, header)
        }
        return nil
    }
}
