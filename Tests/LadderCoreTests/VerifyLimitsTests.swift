import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// `ladder verify` on files it must not trust: decode limits, cheap checks first, replay cache.
@Suite("Verify: limits, depth and the replay cache")
struct VerifyLimitsTests {
    static func verify(
        _ folder: TemporaryDirectory, replay: Bool = false, deep: Bool = false
    ) throws -> VerificationReport {
        try Verifier(
            configuration: Pipelines.configuration(in: folder), options: .init(replay: replay, deep: deep)
        ).run()
    }

    /// Replaces the `variant` file of the first image with `bytes` and records it in the manifest
    /// as if the build had written it, so that only the check under test can catch it.
    static func plant(_ bytes: [UInt8], as variant: String, in folder: TemporaryDirectory) throws -> String {
        var manifest = try VerifyTests.manifest(folder)
        let key = try #require(manifest.images.keys.sorted().first)
        let path = try #require(manifest.images[key]?.variants[variant]?.path)
        try folder.write(bytes, to: "build/variants/" + path)
        manifest.images[key]?.variants[variant]?.bytes = bytes.count
        manifest.images[key]?.variants[variant]?.sha256 = Checksum.hex(.sha256, of: bytes)
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        // The index beside the manifest says the same, as a build would have written it.
        try ManifestIndexWriter(manifestFolder: Directory.open(folder.path("build/variants"))).write(manifest)
        return path
    }

    static func kinds(_ report: VerificationReport, _ path: String) -> Set<String> {
        Set(report.problems.filter { $0.path.hasSuffix(path) }.map(\.kind.rawValue))
    }

    @Test("a variant declaring 20000x20000 is refused from its header, never decoded or replayed")
    func hugeVariant() throws {
        let folder = try VerifyTests.builtProject(photos: 2)
        let huge = try TestImages.jpegDeclaring(width: 20000, height: 20000)
        let path = try Self.plant(huge, as: "full", in: folder)
        for replay in [false, true] {
            let report = try Self.verify(folder, replay: replay)
            let kinds = Self.kinds(report, path)
            #expect(kinds.isSuperset(of: ["too-large", "over-limits"]), "\(report.problems)")
            #expect(!kinds.contains("undecodable"), "a decode would have found the data too short")
            #expect(!report.problems.contains { $0.kind.rawValue.hasPrefix("replay-") }, "never replayed")
            if replay { #expect(report.replays.count == 1, "the other image is replayed") }
        }
    }

    @Test("ladder check refuses a file declaring 20000x20000 with the build's limits, before decoding")
    func checkLimits() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(TestImages.jpegDeclaring(width: 20000, height: 20000), to: "photos/huge.jpg")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        let report = try Pipelines.check(in: folder, jobs: 1)
        let findings = try #require(report.files.first { $0.path == "photos/huge.jpg" }).findings
        #expect(findings.map(\.kind) == [.overLimits], "\(findings)")
        #expect(findings.first?.message.contains("refused before decoding") == true)
    }

    @Test("plain verify vouches by SHA-256 and structure; --deep decodes and reads to the end of image")
    func deep() throws {
        let folder = try VerifyTests.builtProject(photos: 1)
        // Entropy-coded garbage before the end-of-image marker: libjpeg warns about it only once
        // it has read every block.
        var damaged = try folder.read("build/variants/" + VerifyTests.files("large_thumb", in: folder)[0])
        damaged.insert(contentsOf: [UInt8](repeating: 0x5A, count: 64), at: damaged.count - 2)
        let path = try Self.plant(damaged, as: "large_thumb", in: folder)
        #expect(try Self.verify(folder).isOK, "the file is the one the manifest records, well formed")
        let deep = try Self.verify(folder, deep: true)
        #expect(Self.kinds(deep, path) == ["damaged"], "\(deep.problems)")
        #expect(deep.problems.first?.message.contains("extraneous bytes") == true)
    }

    @Test("a file that differs from the manifest is decoded to say what is wrong with it")
    func decodesWhatFailsTheHash() throws {
        let folder = try VerifyTests.builtProject(photos: 1)
        let path = try VerifyTests.files("large_thumb", in: folder)[0]
        var truncated = try folder.read("build/variants/" + path)
        truncated.removeLast(truncated.count / 3)
        try folder.write(truncated, to: "build/variants/" + path)
        let kinds = Self.kinds(try Self.verify(folder), path)
        #expect(kinds.isSuperset(of: ["size", "checksum", "undecodable"]), "\(kinds)")
    }

    @Test(
        "an arithmetic-coded progressive full variant (SOF10) with the right scans fails the check",
        .enabled(
            if: ExternalTools.runs(with: ExternalTools.jpegtran), ExternalTools.absence(ExternalTools.jpegtranPackage)),
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func arithmeticCoding() throws {
        let folder = try VerifyTests.builtProject(photos: 1)
        let original = try folder.read("build/variants/" + VerifyTests.files("full", in: folder)[0])
        let script = folder.path("scans.txt")
        try folder.write(
            ScanScript.recommendedColor.description.replacingOccurrences(of: ";", with: ";\n"), to: "scans.txt")
        let arithmetic = try ExternalTools.run(
            try ExternalTools.require(ExternalTools.jpegtran, ExternalTools.jpegtranPackage),
            ["-arithmetic", "-scans", script], input: original)
        let read = try ExternalTools.djpegStructure(arithmetic)
        try #require(read.frameMarker == 0xCA, "jpegtran wrote SOF10, as djpeg reads it")
        #expect(read.scans.count == 5)
        let path = try Self.plant(arithmetic, as: "full", in: folder)
        let kinds = Self.kinds(try Self.verify(folder), path)
        #expect(kinds.contains("arithmetic-coding"), "\(kinds)")
    }

    @Test(
        "every variant has the scans the manifest records, as libjpeg-turbo's djpeg counts them",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func scansByDjpeg() throws {
        let folder = try VerifyTests.builtProject(photos: 2)
        let manifest = try VerifyTests.manifest(folder)
        var counted = 0
        for entry in manifest.images.values {
            for variant in entry.variants.values {
                let bytes = try folder.read("build/variants/" + variant.path)
                #expect(try ExternalTools.djpegScanCount(bytes) == variant.scans, "\(variant.path)")
                #expect(variant.scans == (variant.progressive ? 5 : 1))
                counted += 1
            }
        }
        #expect(counted == 6)
    }

    @Test("replays are cached by content: reused when nothing changed, redone when a file or the cache changes")
    func replayCache() throws {
        let folder = try VerifyTests.builtProject(photos: 2)
        let first = try Self.verify(folder, replay: true)
        #expect(first.isOK && first.replays.count == 2, "\(first.problems)")
        let cache = folder.path(".ladder/replay-cache")
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".json") }
        #expect(entries.count == 2)
        let written = folder.modificationTimes(under: ".ladder/replay-cache")

        // Nothing changed: the entries are read, not replayed and rewritten.
        let second = try Self.verify(folder, replay: true)
        #expect(second.replays == first.replays)
        #expect(folder.modificationTimes(under: ".ladder/replay-cache") == written)

        // A damaged entry (valid JSON, one number changed) is not trusted: the image is replayed.
        let victim = try #require(entries.sorted().first)
        let text = try String(contentsOfFile: cache + "/" + victim, encoding: .utf8)
        let tampered = text.replacingOccurrences(
            of: #""matchesOneShotDecode":true"#, with: #""matchesOneShotDecode":false"#)
        #expect(tampered != text)
        try folder.write(tampered, to: ".ladder/replay-cache/" + victim)
        let third = try Self.verify(folder, replay: true)
        #expect(third.replays == first.replays, "the damaged entry gave no wrong answer")
        #expect(third.isOK)

        // A changed variant is a new key; the old entry goes.
        try folder.write(TestImages.gradientJPEG(width: 600, height: 400, seed: 40), to: "photos/p0.jpg")
        try Pipelines.build(in: folder)
        _ = try Self.verify(folder, replay: true)
        let after = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".json") }
        #expect(after.count == 2)
        #expect(Set(after).intersection(entries).count == 1, "one image changed, one entry is reused")
    }
}
