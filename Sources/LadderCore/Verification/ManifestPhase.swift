import Foundation
import LadderManifest

/// The manifest phase of `ladder verify`: the manifest is opened as a stream, its top level read
/// (a problem that stops verify when it is missing or not a manifest), and its paths are checked,
/// an image at a time as they stream past (an unsafe one is never opened). Its index files are
/// held to its images as they pass (`ManifestIndexCheck`).
struct ManifestPhase {
    let configuration: PipelineConfiguration
    let manifestLabel: String

    /// The most bytes one member of the manifest may take (an image's entry, or a top-level
    /// field such as `failures`); the manifest itself is streamed, whatever its size.
    static let byteLimit = 1 << 30

    /// The manifest opened as a stream (its top level read, its images counted), or the
    /// problem that stops verify.
    func read() -> Verifier.Step<ManifestStream> {
        do {
            return .done(try ManifestStream(path: configuration.manifestPath, byteLimit: Self.byteLimit))
        } catch {
            return .stopped(problem(error))
        }
    }

    /// The problem that stops verify when the manifest cannot be read.
    func problem(_ failure: ManifestStream.Failure) -> VerificationProblem {
        switch failure {
        case .file(let error):
            let missing = error.code == ENOENT
            return VerificationProblem(
                path: manifestLabel, kind: missing ? .manifestMissing : .unreadable,
                message: missing ? "no manifest; run ladder build first" : error.description)
        case .manifest(let reason):
            return VerificationProblem(path: manifestLabel, kind: .manifestInvalid, message: reason)
        }
    }

    /// The manifest's unsafe paths, and the keys ("<sha1>/<variant>") of the variants they
    /// belong to, which are never opened.
    func unsafePaths(_ manifest: Manifest) -> (problems: [VerificationProblem], keys: Set<String>) {
        reported(manifest.contentProblems())
    }

    /// `unsafePaths(_:)` of one image, as the manifest streams past.
    func unsafePaths(
        _ key: String, _ entry: Manifest.ImageEntry
    ) -> (problems: [VerificationProblem], keys: Set<String>) {
        reported(Manifest.contentProblems(key, entry))
    }

    private func reported(_ found: [Manifest.ContentProblem]) -> (problems: [VerificationProblem], keys: Set<String>) {
        var problems: [VerificationProblem] = []
        var keys: Set<String> = []
        for problem in found {
            problems.append(
                VerificationProblem(
                    path: manifestLabel, kind: .unsafePath, message: "\(problem.location): \(problem.message)",
                    image: problem.image))
            if let image = problem.image { keys.insert(image + "/" + (problem.variant ?? "")) }
        }
        return (problems, keys)
    }

}
