import Foundation
import Testing

/// What differs between Apple platforms and Linux stays in one `Platform.swift` per module, so
/// that a macOS port has one file per module to look at.
@Suite("Portability")
struct PortabilityTests {
    /// The package's Sources folder, from this file's path.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test(
        "no module names Glibc or Darwin outside its Platform.swift",
        arguments: ["LadderCore", "LadderImaging", "LadderCLI", "LadderManifest", "LadderClient"])
    func platformFiles(module: String) throws {
        let folder = Self.sources.appendingPathComponent(module)
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.count > 3, "\(folder.path) holds the module's sources")
        for file in files where !file.hasSuffix("Platform.swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for name in ["Glibc", "Darwin"] {
                #expect(!text.contains("import \(name)"), "\(module)/\(file) imports \(name)")
                #expect(!text.contains("\(name)."), "\(module)/\(file) calls \(name) directly")
            }
        }
    }
}
