import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// The manifest's `scanEnds`, checked with libjpeg as the oracle: given only the first
/// `scanEnds[k]` bytes (and an end-of-image marker, as a client that knows the download stopped
/// there supplies), libjpeg completes exactly k + 1 scans without a warning; one byte fewer and
/// it runs out of data inside scan k + 1.
@Suite("Scan ends in the manifest")
struct ScanEndsTests {
    static func project(photos: Int = 2) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory()
        for index in 0..<photos {
            try folder.write(TestImages.gradientJPEG(width: 700, height: 460, seed: index), to: "photos/p\(index).jpg")
        }
        try folder.write(TestImages.grayscaleJPEG(width: 500, height: 300), to: "photos/gray.jpg")
        try Pipelines.write(#"{"sources": ["photos"]}"#, in: folder)
        try Pipelines.build(in: folder)
        return folder
    }

    static func manifest(_ folder: TemporaryDirectory) throws -> Manifest {
        try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
    }

    /// What libjpeg makes of `bytes` followed by an end-of-image marker: scans completed, and
    /// whether it warned (ran out of data inside a scan).
    static func libjpegReading(_ bytes: ArraySlice<UInt8>) throws -> (scans: Int, warnings: Int) {
        let decoder = try JPEGReplayDecoder(Array(bytes) + [0xFF, 0xD9], maximumScans: 100)
        let state = try decoder.advance(to: bytes.count + 2)
        #expect(state.inputComplete)
        return (state.scansCompleted, state.warnings)
    }

    @Test("each progressive variant lists where its scans end, and libjpeg agrees byte for byte")
    func libjpegAgrees() throws {
        let folder = try Self.project()
        let manifest = try Self.manifest(folder)
        var checked = 0
        for entry in manifest.images.values {
            for variant in entry.variants.values {
                guard variant.progressive else {
                    #expect(variant.scanEnds == nil, "baseline variants carry no scanEnds")
                    continue
                }
                let bytes = try folder.read("build/variants/" + variant.path)
                let ends = try #require(variant.scanEnds)
                #expect(ends.count == variant.scans && variant.scans == 5)
                #expect(ends == ends.sorted() && Set(ends).count == ends.count)
                #expect(ends.last == bytes.count, "the last one is the whole file")
                for (k, end) in ends.enumerated() {
                    let enough = try Self.libjpegReading(bytes[..<min(end, bytes.count - 2)])
                    #expect(enough.scans == k + 1, "the first \(end) bytes show scan \(k + 1)")
                    #expect(enough.warnings == 0, "scan \(k + 1) is complete in \(end) bytes")
                    let short = try Self.libjpegReading(bytes[..<(min(end, bytes.count - 2) - 1)])
                    #expect(short.warnings > 0, "one byte fewer cuts scan \(k + 1) short")
                    checked += 1
                }
            }
        }
        #expect(checked == 15, "5 scans in each of 3 full-size variants")
    }

    @Test("ladder verify finds scanEnds that are missing, shifted or of the wrong count")
    func verifyChecksThem() throws {
        let folder = try Self.project()
        let clean = try Verifier(configuration: Pipelines.configuration(in: folder)).run()
        #expect(clean.isOK, "\(clean.problems)")

        var manifest = try Self.manifest(folder)
        let keys = manifest.images.keys.sorted()
        try #require(keys.count == 3)
        manifest.images[keys[0]]?.variants["full"]?.scanEnds = nil
        manifest.images[keys[1]]?.variants["full"]?.scanEnds?[1] += 1
        manifest.images[keys[2]]?.variants["full"]?.scanEnds?.removeLast()
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")
        // The index beside the manifest says the same, as a build would have written it.
        try ManifestIndexWriter(manifestFolder: Directory.open(folder.path("build/variants"))).write(manifest)

        let report = try Verifier(configuration: Pipelines.configuration(in: folder)).run()
        let found = report.problems.filter { $0.kind.rawValue == "scan-ends" }
        #expect(found.count == 3, "\(report.problems)")
        #expect(Set(found.compactMap(\.image)) == Set(keys))
        #expect(found.contains { $0.message.contains("no scanEnds") })
        #expect(found.contains { $0.message.contains("scan 2 ends at byte") })
        #expect(found.contains { $0.message.contains("4 scanEnds, the file has 5 scans") })
        #expect(
            report.problems.allSatisfy { ["scan-ends", "index"].contains($0.kind.rawValue) },
            "nothing else is wrong (the index file follows the manifest, which the test edited)")
    }

    @Test("a progressive variant recorded without scanEnds is made again, and then has them")
    func olderManifests() throws {
        let folder = try Self.project(photos: 1)
        var manifest = try Self.manifest(folder)
        for key in manifest.images.keys { manifest.images[key]?.variants["full"]?.scanEnds = nil }
        try folder.write([UInt8](manifest.jsonData()), to: "build/variants/manifest.json")

        let report = try Pipelines.build(in: folder)
        #expect(report.built == 2, "both images' full variants are made again")
        let rebuilt = try Self.manifest(folder)
        #expect(rebuilt.images.values.allSatisfy { $0.variants["full"]?.scanEnds?.count == 5 })
        #expect(rebuilt.images.count == 2)
    }

    @Test("scanEnds survive a rebuild that reuses the last manifest's entries")
    func survivesRebuilds() throws {
        let folder = try Self.project(photos: 1)
        let before = try Self.manifest(folder)
        try folder.write(TestImages.gradientJPEG(width: 300, height: 200, seed: 42), to: "photos/new.jpg")
        let report = try Pipelines.build(in: folder)
        #expect(report.built == 1 && report.skipped == 2)
        let after = try Self.manifest(folder)
        for (key, entry) in before.images {
            #expect(after.images[key]?.variants["full"]?.scanEnds == entry.variants["full"]?.scanEnds)
            #expect(entry.variants["full"]?.scanEnds?.count == 5)
        }
    }
}
