import Foundation
import LadderManifest

/// The manifest phase of `ladder verify`: the manifest is read and decoded (a problem that stops
/// verify when it is missing or not a manifest), its paths are checked (an unsafe one is never
/// opened), and its index files are held to it.
struct ManifestPhase {
    let configuration: PipelineConfiguration
    let manifestLabel: String

    /// The largest manifest verify reads.
    static let byteLimit = 1 << 30

    /// The manifest, read and decoded, or the problem that stops verify.
    func read() -> Verifier.Step<Manifest> {
        let data: [UInt8]
        do {
            data = try Directory.readFile(atPath: configuration.manifestPath, limit: Self.byteLimit)
        } catch {
            let missing = error.code == ENOENT
            return .stopped(
                VerificationProblem(
                    path: manifestLabel, kind: missing ? .manifestMissing : .unreadable,
                    message: missing ? "no manifest; run ladder build first" : error.description))
        }
        do {
            return .done(try Manifest(shapeOf: Data(data)))
        } catch {
            return .stopped(VerificationProblem(path: manifestLabel, kind: .manifestInvalid, message: error.reason))
        }
    }

    /// The manifest's unsafe paths, and the keys ("<sha1>/<variant>") of the variants they
    /// belong to, which are never opened.
    func unsafePaths(_ manifest: Manifest) -> (problems: [VerificationProblem], keys: Set<String>) {
        var problems: [VerificationProblem] = []
        var keys: Set<String> = []
        for problem in manifest.contentProblems() {
            problems.append(
                VerificationProblem(
                    path: manifestLabel, kind: .unsafePath, message: "\(problem.location): \(problem.message)",
                    image: problem.image))
            if let image = problem.image { keys.insert(image + "/" + (problem.variant ?? "")) }
        }
        return (problems, keys)
    }

    /// The index files beside the manifest, held to it.
    func indexProblems(_ manifest: Manifest) -> [VerificationProblem] {
        ManifestIndexCheck(configuration: configuration, manifestLabel: manifestLabel).problems(manifest)
    }
}
