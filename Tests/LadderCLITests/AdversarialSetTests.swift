import Foundation
import LadderManifest
import Testing

/// The adversarial set (`AdversarialImages`) built and verified as CI runs ladder: whatever a
/// correct build makes of it, verify must find nothing wrong.
@Suite("Adversarial set", .serialized)
struct AdversarialSetTests {
    /// The set and its default build, made once for the suite.
    static let project: (folder: TemporaryDirectory, names: [String], build: (status: Int32, output: String))? = {
        guard LadderExecutable.path != nil else { return nil }
        TestImages.start()
        let folder = TemporaryDirectory("ladder-adversarial")
        var names: [String] = []
        for (name, bytes) in try! AdversarialImages.all() {
            try! folder.write(bytes, to: "photos/" + name)
            names.append(name)
        }
        try! folder.write(AdversarialImages.huge(), to: "photos/huge-6000x4000.jpg")
        names.append("huge-6000x4000.jpg")
        try! folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let build = try! LadderExecutable.run(["build", "--json"], in: folder.path)
        return (folder, names, (build.status, build.output))
    }()

    @Test("a default build of the adversarial set makes every file and passes verify --deep --replay with no problem")
    func verifies() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let (folder, names, build) = try #require(Self.project)
        #expect(build.status == 0, "\(build.output)")
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        #expect(manifest.failures.isEmpty, "\(manifest.failures)")
        #expect(manifest.images.values.reduce(0) { $0 + $1.sources.count } == names.count)

        let result = try LadderExecutable.run(["verify", "--deep", "--replay", "--json"], in: folder.path)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            Comment(rawValue: result.output + result.error))
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(
            problems.isEmpty, "\(problems.map { "\($0["path"] ?? ""): \($0["kind"] ?? ""): \($0["message"] ?? "")" })")
        #expect(result.status == 0 && report["ok"] as? Bool == true)
        #expect(report["images"] as? Int == manifest.images.count)
        #expect((report["replay"] as? [Any])?.count == manifest.images.count, "every image was replayed")
    }
}
