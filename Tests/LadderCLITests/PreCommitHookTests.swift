import Foundation
import Testing

/// examples/pre-commit/pre-commit in a real git repository, with the built ladder on the PATH.
@Suite("Pre-commit hook", .serialized)
struct PreCommitHookTests {
    static let hook = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/pre-commit/pre-commit").path

    static let git: String? = ["/usr/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs git in `folder` with ladder's folder first on the PATH.
    static func git(_ arguments: [String], in folder: TemporaryDirectory) throws -> (status: Int32, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: git!)
        process.arguments = ["-c", "user.name=Designer", "-c", "user.email=designer@example.com"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let ladderFolder = (LadderExecutable.path! as NSString).deletingLastPathComponent
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = ladderFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(
        "a staged image ladder cannot build stops the commit, naming it; sound images and other files pass",
        .enabled(if: ExternalTools.runs(with: git) && LadderExecutable.path != nil, "needs git and the built ladder"))
    func hook() throws {
        _ = try ExternalTools.require(Self.git, "git")
        TestImages.start()
        let folder = TemporaryDirectory()
        _ = try Self.git(["init", "-q"], in: folder)
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200), to: "photos/good photo.jpg")
        try FileManager.default.copyItem(atPath: Self.hook, toPath: folder.path(".git/hooks/pre-commit"))

        _ = try Self.git(["add", "."], in: folder)
        #expect(try Self.git(["commit", "-q", "-m", "first"], in: folder).status == 0, "a sound image passes")

        try folder.write("not a photo", to: "photos/broken.jpg")
        try folder.write("notes", to: "README.md")
        _ = try Self.git(["add", "."], in: folder)
        let refused = try Self.git(["commit", "-q", "-m", "broken"], in: folder)
        #expect(refused.status != 0)
        #expect(refused.error.contains("photos/broken.jpg"), "\(refused.error)")
        #expect(refused.error.contains("--no-verify"))

        _ = try Self.git(["rm", "-q", "--cached", "photos/broken.jpg"], in: folder)
        #expect(try Self.git(["commit", "-q", "-m", "notes"], in: folder).status == 0, "no image staged")
    }
}
