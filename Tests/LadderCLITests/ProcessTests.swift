import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import LadderTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real executable as a separate process: render workers, locking, and kill -9.
@Suite("ladder process", .serialized)
struct ProcessTests {
    static func project(photos count: Int, size: Int = 900) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<count {
            try folder.write(
                TestImages.gradientJPEG(width: size, height: size * 2 / 3, seed: index), to: "photos/p\(index).jpg")
        }
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        return folder
    }

    /// Every file the manifest names exists with its recorded size and SHA-256.
    static func manifestIsIntact(_ folder: TemporaryDirectory) throws -> Bool {
        guard folder.exists("build/variants/manifest.json") else { return true }  // the first build never finished
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        for entry in manifest.images.values {
            for variant in entry.variants.values {
                guard let bytes = try? folder.read("build/variants/" + variant.path), bytes.count == variant.bytes,
                    Checksum.hex(.sha256, of: bytes) == variant.sha256
                else { return false }
            }
        }
        return true
    }

    @Test("the executable builds with render workers and a failing file does not stop it")
    func workers() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 3, size: 300)
        try folder.write("junk", to: "photos/junk.jpg")
        let result = try LadderExecutable.run(["build", "--json"], in: folder.path)
        #expect(result.status == 1)
        #expect(result.output.contains("\"built\":3"))
        #expect(result.output.contains("photos/junk.jpg"))
        #expect(try Self.manifestIsIntact(folder))
    }

    @Test("with another build holding the output folder, --no-wait exits 75")
    func locked() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 1, size: 200)
        let output = try Directory.create(folder.path("build/variants"))
        let lock = try output.lockFile(OutputOwnership.lockFileName, wait: false)
        #expect(lock != nil)
        let result = try LadderExecutable.run(["build", "--no-wait"], in: folder.path)
        #expect(result.status == 75)
        #expect(result.error.contains("another ladder build"))
        withExtendedLifetime(lock) {}
    }

    @Test("a second build on the same output folder waits for the first, then runs")
    func waitsForLock() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 1, size: 200)
        var holder: FileLock? = try Directory.create(folder.path("build/variants"))
            .lockFile(OutputOwnership.lockFileName, wait: false)
        #expect(holder != nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LadderExecutable.path!)
        process.arguments = ["build"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1)
        #expect(process.isRunning, "the second build waits")
        #expect(!folder.exists("build/variants/manifest.json"))
        holder = nil  // closing the descriptor releases the lock, as a dying process's would
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains(
                "waiting for another ladder build"))
        #expect(folder.exists("build/variants/manifest.json"))
    }

    @Test("a decode that runs past the time limit is stopped, and the batch goes on")

    func timeLimit() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 2, size: 300)
        // A large progressive image takes well over the tiny limit set here to decode.
        let large = try Image(
            pixels: [UInt8](repeating: 90, count: 9000 * 9000), width: 9000, height: 9000, bands: 1, space: .grayscale)
        let slow = try large.jpegEncoded(
            JPEGEncoding(quality: 80, fullChroma: true, scans: ScanScript.recommendedGrayscale.scans))
        try folder.write(slow, to: "photos/slow.jpg")
        try folder.write(#"{"sources": ["photos"], "limits": {"timeoutSeconds": 0.3}}"#, to: "pipeline.json")

        let started = ContinuousClock.now
        let result = try LadderExecutable.run(["build", "--json"], in: folder.path)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.status == 1)
        #expect(result.output.contains("\"built\":2"))
        #expect(result.output.contains("took longer than the time limit of 0.3 s"))

    }

    @Test("a full disk stops the build with 74 and the previous manifest and files stay valid")
    func diskFull() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 2, size: 600)
        let mount = folder.path("small-disk")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        guard DiskImage.mountTmpfs(at: mount, megabytes: 2) else {
            print("disk-full test skipped: cannot mount a tmpfs here (needs root)")
            return
        }
        defer { DiskImage.unmount(mount) }
        try folder.write(#"{"sources": ["photos"], "output": "small-disk/variants"}"#, to: "pipeline.json")
        #expect(try LadderExecutable.run(["build"], in: folder.path).status == 0)
        let before = try folder.read("small-disk/variants/manifest.json")
        // Sources that need far more than the disk holds.
        for index in 10..<16 {
            try folder.write(
                TestImages.gradientJPEG(width: 2400, height: 1800, seed: index, quality: 98),
                to: "photos/big\(index).jpg")
        }
        let full = try LadderExecutable.run(["build"], in: folder.path)
        #expect(full.status == 74)
        #expect(full.error.contains("No space left on device"))
        #expect(try folder.read("small-disk/variants/manifest.json") == before, "the previous manifest is intact")
        let manifest = try Manifest(jsonData: Data(before))
        for entry in manifest.images.values {
            for variant in entry.variants.values {
                let bytes = try folder.read("small-disk/variants/" + variant.path)
                #expect(Checksum.hex(.sha256, of: bytes) == variant.sha256)
            }
        }
        #expect(
            !folder.files(under: "small-disk").contains { $0.contains(".ladder-tmp-") }, "no temporary file is left")
    }

    @Test("kill -9 at any moment leaves a valid manifest, and the next run completes it")

    func killedBuilds() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 12)
        let clean = try Self.project(photos: 12)
        let reference = try LadderExecutable.run(["build"], in: clean.path)
        #expect(reference.status == 0)
        for delay in [0.15, 0.6, 1.2] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: LadderExecutable.path!)
            process.arguments = ["build", "--quiet"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(try Self.manifestIsIntact(folder), "after a kill at \(delay) s")
        }
        let finished = try LadderExecutable.run(["build"], in: folder.path)
        #expect(finished.status == 0)
        #expect(try Self.manifestIsIntact(folder))
        #expect(
            try folder.read("build/variants/manifest.json") == clean.read("build/variants/manifest.json"),
            "the interrupted builds end exactly where a clean build does")
        #expect(!folder.files(under: "build/variants").contains { $0.contains(".ladder-tmp-") })
    }
}
