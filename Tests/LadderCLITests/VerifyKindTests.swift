import Foundation
import LadderCLI
import LadderCore
import LadderImaging
import LadderManifest
import Synchronization
import Testing

/// Every kind of problem `ladder verify` reports, each produced by a real tampering with what a
/// build wrote, or a real change of pipeline.json, and seen by `ladder verify --json` as exactly
/// the kinds expected. The test runs over `ProblemKind.allCases`: a kind added to verify without
/// a way to produce it here fails it.
@Suite(
    "verify: every problem kind can be produced",
    .enabled(if: ExternalTools.runs(with: ExternalTools.jpegtran), ExternalTools.absence(ExternalTools.jpegtranPackage))
)
struct VerifyKindTests {
    /// How one kind is produced.
    struct Tampering: Sendable {
        /// The built project it starts from.
        var template: Template = .standard
        /// Extra arguments of `ladder verify`.
        var arguments: [String] = []
        /// Every kind `ladder verify --json` must report: the kind itself, and what the same
        /// tampering cannot help causing as well.
        var expected: Set<String>
        /// Run verify as an unprivileged user (when this process is root), so that a file
        /// without read permission cannot be read.
        var unprivileged = false
        /// Changes the built project.
        var apply: @Sendable (Project) throws -> Void
    }

    /// The built projects the tamperings start from, each built once by the real executable.
    enum Template: Sendable {
        /// A photo (an opaque JPEG) and a half-transparent PNG, the default pipeline.
        case standard
        /// A 1600x1200 picture of waves, its full variant with a custom 5-scan script
        /// (Cloudinary's "semi-progressive": spectral selection only).
        case customScript
        /// The photo of `standard` alone, with AVIF and JPEG XL siblings on every variant.
        case siblings
    }

    static let customScript = "0,1,2: 0-0,0,0; 0: 1-9,0,0; 2: 1-63,0,0; 1: 1-63,0,0; 0: 10-63,0,0;"

    static let tamperings: [ProblemKind: Tampering] = [
        .manifestMissing: Tampering(expected: ["manifest-missing"]) { project in
            try FileManager.default.removeItem(atPath: project.path(Project.manifest))
        },
        .manifestInvalid: Tampering(expected: ["manifest-invalid"]) { project in
            try project.folder.write("{ \"version\": 1, \"images\": ", to: Project.manifest)
        },
        .unsafePath: Tampering(expected: ["unsafe-path"]) { project in
            // The entry points outside the output folder, at a source; the file it named is gone.
            try FileManager.default.removeItem(atPath: project.path(project.file("photo", "large_thumb")))
            try project.edit { $0.images[$1("photo")]?.variants["large_thumb"]?.path = "../../photos/photo.jpg" }
        },
        .index: Tampering(expected: ["index"]) { project in
            let index = try #require(project.folder.files(under: "build/variants/index").first)
            try FileManager.default.removeItem(atPath: project.path("build/variants/index/" + index))
        },
        .missing: Tampering(expected: ["missing"]) { project in
            try FileManager.default.removeItem(atPath: project.path(project.file("photo", "large_thumb")))
        },
        .unreadable: Tampering(expected: ["unreadable"], unprivileged: true) { project in
            let file = project.path(try project.file("photo", "large_thumb"))
            #expect(chmod(file, 0) == 0)
        },
        .size: Tampering(expected: ["size"]) { project in
            try project.edit { $0.images[$1("photo")]?.variants["large_thumb"]?.bytes += 1 }
        },
        .checksum: Tampering(expected: ["checksum"]) { project in
            try project.edit {
                $0.images[$1("photo")]?.variants["large_thumb"]?.sha256 = String(repeating: "0", count: 64)
            }
        },
        .undecodable: Tampering(expected: ["undecodable"]) { project in
            let bytes = try project.read("photo", "large_thumb")
            try project.plant(Array(bytes.prefix(bytes.count * 3 / 5)), as: "large_thumb", of: "photo")
        },
        .damaged: Tampering(arguments: ["--deep"], expected: ["damaged"]) { project in
            try project.plant(
                try Project.corrupted(project.read("photo", "large_thumb")), as: "large_thumb", of: "photo")
        },
        .dimensions: Tampering(expected: ["dimensions"]) { project in
            try project.edit { $0.images[$1("photo")]?.variants["large_thumb"]?.width += 1 }
        },
        .tooLarge: Tampering(expected: ["too-large", "recipe-size"]) { project in
            try project.plant(
                try TestImages.gradientJPEG(width: 700, height: 467, seed: 3), as: "large_thumb", of: "photo")
        },
        .overLimits: Tampering(expected: ["over-limits"]) { project in
            try project.folder.write(
                #"{"sources": ["photos"], "limits": {"maxFileBytes": 20000}}"#, to: "pipeline.json")
        },
        .missingVariant: Tampering(expected: ["missing-variant"]) { project in
            try project.pipeline(
                variants: Project.defaultVariants + [#""medium": {"maxWidth": 320, "maxHeight": 320, "quality": 80}"#])
        },
        .unknownVariant: Tampering(expected: ["unknown-variant"]) { project in
            try project.pipeline(variants: Array(Project.defaultVariants.prefix(2)))
        },
        .staleRecipe: Tampering(expected: ["stale-recipe"]) { project in
            try project.pipeline(variants: [
                Project.defaultVariants[0], #""large_thumb": {"maxWidth": 640, "maxHeight": 640, "quality": 90}"#,
                Project.defaultVariants[2],
            ])
        },
        .recipeSize: Tampering(expected: ["recipe-size"]) { project in
            // Fits the 640x640 box, and the manifest is edited to match: only the source's own
            // size (700x467, so 640x427) tells.
            try project.plant(
                try TestImages.gradientJPEG(width: 640, height: 400, seed: 3), as: "large_thumb", of: "photo")
        },
        .notProgressive: Tampering(expected: ["not-progressive"]) { project in
            try project.plant(
                try Project.reencoded(project.read("photo", "full"), ".jpg[Q=85]"), as: "full", of: "photo")
        },
        .scanCount: Tampering(expected: ["scan-count"]) { project in
            try project.plant(
                try Project.reencoded(project.read("photo", "full"), ".jpg[Q=85,interlace]"), as: "full", of: "photo")
        },
        .scanScript: Tampering(template: .customScript, expected: ["scan-script"]) { project in
            // The same coefficients in the recommended 5-scan script instead of the custom one.
            let rescanned = try JPEGCoefficients(reading: project.read("waves", "full"))
                .written(scans: ScanScript.recommendedColor.scans)
            try project.plant(rescanned, as: "full", of: "waves")
        },
        .notBaseline: Tampering(expected: ["not-baseline"]) { project in
            try project.plant(
                try Project.reencoded(project.read("photo", "large_thumb"), ".jpg[Q=82,interlace]"), as: "large_thumb",
                of: "photo")
        },
        .arithmeticCoding: Tampering(expected: ["arithmetic-coding"]) { project in
            try project.plant(try project.arithmetic(project.read("photo", "full")), as: "full", of: "photo")
        },
        .scanEnds: Tampering(expected: ["scan-ends"]) { project in
            try project.edit { $0.images[$1("photo")]?.variants["full"]?.scanEnds?[1] += 1 }
        },
        .gps: Tampering(expected: ["gps"]) { project in
            try project.plant(
                try Project.withMetadata(
                    project.read("photo", "large_thumb"),
                    strings: ["exif-ifd3-GPSLatitudeRef": "N", "exif-ifd3-GPSLatitude": "51/1 30/1 0/1"]),
                as: "large_thumb", of: "photo")
        },
        .orientation: Tampering(expected: ["orientation"]) { project in
            try project.plant(
                try Project.withMetadata(project.read("photo", "large_thumb"), integers: ["orientation": 6]),
                as: "large_thumb", of: "photo")
        },
        .metadata: Tampering(expected: ["metadata"]) { project in
            // An EXIF block libexif cannot read: the metadata policy cannot be vouched for.
            try project.plant(
                try Project.withSegment(
                    project.read("photo", "large_thumb"), app: 0xE1,
                    payload: Array("Exif\0\0".utf8) + [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F]),
                as: "large_thumb", of: "photo")
        },
        .unknownFormat: Tampering(template: .siblings, expected: ["unknown-format"]) { project in
            // A WebP entry the recipe does not ask for (pointing at the AVIF file, which exists).
            try project.edit { manifest, key in
                let avif = manifest.images[key("photo")]?.variants["large_thumb"]?.formats?["avif"]
                manifest.images[key("photo")]?.variants["large_thumb"]?.formats?["webp"] = avif
            }
        },
        .siblingUndecodable: Tampering(template: .siblings, expected: ["sibling-undecodable"]) { project in
            // The JPEG rung where its AVIF belongs, recorded as a build would record it.
            try project.plantSibling(project.read("photo", "large_thumb"), as: "avif", of: "large_thumb")
        },
        .siblingDimensions: Tampering(template: .siblings, expected: ["sibling-dimensions"]) { project in
            // The small thumbnail's AVIF as the large thumbnail's: a valid AVIF, inside the box.
            let small = try #require(try project.sibling("avif", of: "small_thumb"))
            try project.plantSibling(
                try project.folder.read("build/variants/" + small.path), as: "avif", of: "large_thumb")
        },
        .jxlReconstruction: Tampering(template: .siblings, expected: ["jxl-reconstruction"]) { project in
            // A valid JPEG XL recompression, at the rung's size, of another JPEG than the rung.
            let other = try Project.reencoded(project.read("photo", "large_thumb"), ".jpg[Q=60]")
            try project.plantSibling(try JPEGXL.recompressing(jpeg: other, effort: 7), as: "jxl", of: "large_thumb")
        },
        .placeholderMissing: Tampering(expected: ["placeholder-missing"]) { project in
            try project.edit { $0.images[$1("photo")]?.placeholder = nil }
        },
        .placeholderInvalid: Tampering(expected: ["placeholder-invalid"]) { project in
            try project.edit { $0.images[$1("photo")]?.averageColor = "red" }
        },
        .placeholderColor: Tampering(expected: ["placeholder-color"]) { project in
            // The other image's placeholder: its average colour is far from this one's.
            try project.edit { manifest, key in
                let other = manifest.images[key("logo")]?.placeholder
                manifest.images[key("photo")]?.placeholder = other
            }
        },
        .hasAlpha: Tampering(expected: ["has-alpha"]) { project in
            try project.edit { $0.images[$1("photo")]?.hasAlpha = true }
        },
        .stale: Tampering(expected: ["stale"]) { project in
            try project.folder.write(
                try TestImages.gradientJPEG(width: 700, height: 467, seed: 4), to: "photos/photo.jpg")
        },
        .sourceUnreadable: Tampering(expected: ["source-unreadable"], unprivileged: true) { project in
            #expect(chmod(project.path("photos/photo.jpg"), 0) == 0)
        },
        .orphan: Tampering(expected: ["orphan"]) { project in
            try project.folder.write("notes", to: "build/variants/notes.txt")
        },
        .replayArithmeticCoding: Tampering(
            arguments: ["--replay"],
            // libjpeg's arithmetic decoder cannot suspend (libjpeg-turbo#120): the replay, which
            // feeds the file as it arrives, stops.
            expected: ["arithmetic-coding", "replay-arithmetic-coding", "replay-undecodable", "replay-scan-count"]
        ) { project in
            try project.plant(try project.arithmetic(project.read("photo", "full")), as: "full", of: "photo")
        },
        .replayTruncated: Tampering(
            arguments: ["--replay"],
            // The file lacks its last scans and its end: libjpeg warns of the premature end.
            expected: ["undecodable", "scan-count", "scan-ends", "replay-truncated", "replay-corrupt-data"]
        ) { project in
            // Cut inside the third scan, whatever the script chosen for the photo.
            let bytes = try project.read("photo", "full")
            let third = try JPEGStructure(parsing: bytes).scans[2]
            try project.plant(Array(bytes.prefix((third.dataOffset + third.endOffset) / 2)), as: "full", of: "photo")
        },
        .replayUndecodable: Tampering(arguments: ["--replay"], expected: ["replay-undecodable", "replay-scan-count"]) {
            project in
            // A Huffman table that declares 400 codes, before the third scan: the segments walk,
            // libjpeg refuses it once it gets there, so the replay shows fewer scans.
            let table: [UInt8] = [0x10] + [UInt8](repeating: 25, count: 16) + [UInt8](repeating: 0, count: 400)
            try project.plant(
                try Project.withSegment(project.read("photo", "full"), marker: 0xC4, payload: table, beforeScan: 3),
                as: "full", of: "photo")
        },
        .replayCorruptData: Tampering(arguments: ["--replay"], expected: ["replay-corrupt-data"]) { project in
            try project.plant(try Project.corrupted(project.read("photo", "full")), as: "full", of: "photo")
        },
        .replayScanCount: Tampering(arguments: ["--replay"], expected: ["scan-count", "replay-scan-count"]) { project in
            try project.edit { $0.images[$1("photo")]?.variants["full"]?.scans = 6 }
        },
        .replayFirstPaint: Tampering(template: .customScript, arguments: ["--replay"], expected: ["replay-first-paint"])
        {
            project in
            // A budget the custom script's first scan (the DC, over 14,600 bytes) cannot meet.
            try project.folder.write(
                #"{"sources": ["photos"], "replay": {"firstPaintBudget": 0.05}, "variants": {"#
                    + Project.defaultVariants[1...].joined(separator: ", ") + ", "
                    + Project.fixedFull(Self.customScript) + "}}", to: "pipeline.json")
        },
        .replayQuality: Tampering(
            template: .customScript, arguments: ["--replay"], expected: ["replay-quality", "scan-script"]
        ) { project in
            // Scans of exact coefficients only ever bring the picture closer (libjpeg paints each
            // as browsers do). A file can still go back: its second scan brings the luma detail
            // of another picture, its third the waves' own again (libjpeg reads on without a
            // warning). That script sends a band twice: not a complete one.
            let script = [
                JPEGScan(components: [0, 1, 2], ss: 0, se: 0, ah: 0, al: 0),
                JPEGScan(components: [0], ss: 1, se: 63, ah: 0, al: 0),
                JPEGScan(components: [1], ss: 1, se: 63, ah: 0, al: 0),
                JPEGScan(components: [2], ss: 1, se: 63, ah: 0, al: 0),
            ]
            let own = try JPEGCoefficients(reading: project.read("waves", "full")).written(scans: script)
            let size = try JPEGStructure(parsing: own)
            // The waves upside down: the same coefficients negated. A first scan of a band writes
            // only the coefficients it has that are not zero, so the third leaves none of these.
            let inverted = try AdversarialImages.rgb(size.width, size.height) { x, y in
                [UInt8](repeating: UInt8(128 - 90 * sin(Double(x) / 8) * cos(Double(y) / 8)), count: 3)
            }
            let other = try JPEGCoefficients(reading: inverted.encoded(as: ".jpg[Q=85]")).written(scans: script)
            let (ownScans, otherScans) = (size.scans, try JPEGStructure(parsing: other).scans)
            let crafted =
                Array(own[..<ownScans[0].endOffset]) + Array(other[otherScans[0].endOffset..<otherScans[1].endOffset])
                + Array(own[ownScans[0].endOffset...])
            try project.plant(crafted, as: "full", of: "waves")
        },
        .budget: Tampering(expected: ["budget"]) { project in
            try project.folder.write(
                #"{"sources": ["photos"], "replay": {"budgets": {"slow-2g": {"completeSeconds": 1}}}}"#,
                to: "pipeline.json")
        },
    ]

    @Test("verify reports exactly what each tampering or configuration change causes", arguments: ProblemKind.allCases)
    func produced(_ kind: ProblemKind) throws {
        let tampering = try #require(Self.tamperings[kind], "no tampering here produces \(kind); add one")
        let project = try Project.copy(of: tampering.template)
        try tampering.apply(project)
        let arguments = ["verify", "--json"] + tampering.arguments
        let output: String
        let status: Int32
        if tampering.unprivileged && getuid() == 0 {
            // root reads any file: run verify as an unprivileged user then.
            let executable = try #require(LadderExecutable.path, Comment(rawValue: LadderExecutable.absenceNote))
            let result = try ChildProcess.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments,
                in: project.folder.path)
            (output, status) = (String(decoding: result.output, as: UTF8.self), result.status)
        } else {
            let result = runLadder(arguments + ["--config", project.path("pipeline.json")])
            (output, status) = (result.output, result.code.rawValue)
        }
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], Comment(rawValue: output))
        let problems = try #require(report["problems"] as? [[String: Any]])
        let kinds = Set(problems.compactMap { $0["kind"] as? String })
        #expect(kinds == tampering.expected, "\(problems)")
        #expect(kinds.contains(kind.rawValue))
        #expect(status == (kind.isReadFailure ? 74 : 1), "\(output)")
        for problem in problems {
            #expect((problem["message"] as? String)?.isEmpty == false)
        }
    }
}

/// A copy of a built template project, and the tamperings one can do to it.
final class Project: Sendable {
    static let manifest = "build/variants/manifest.json"
    let folder: TemporaryDirectory

    init(folder: TemporaryDirectory) { self.folder = folder }

    func path(_ relative: String) -> String { folder.path(relative) }

    /// The default variants, as pipeline.json writes them.
    static let defaultVariants = [
        #""full": {"maxWidth": 2560, "maxHeight": 2560, "quality": 85, "progressive": {"scans": 5}}"#,
        #""large_thumb": {"maxWidth": 640, "maxHeight": 640, "quality": 82}"#,
        #""small_thumb": {"maxWidth": 160, "maxHeight": 160, "quality": 80}"#,
    ]

    /// The full variant with a fixed scan script (the same one for grayscale files is never
    /// used: the templates are in colour).
    static func fixedFull(_ script: String) -> String {
        #""full": {"maxWidth": 2560, "maxHeight": 2560, "quality": 85, "progressive": {"scans": 5, "script": {"color": ""#
            + script + #"", "grayscale": "0: 0-0,0,0; 0: 1-8,0,2; 0: 9-63,0,2; 0: 1-63,2,1; 0: 1-63,1,0;"}}}"#
    }

    func pipeline(variants: [String]) throws {
        try folder.write(
            #"{"sources": ["photos"], "variants": {"# + variants.joined(separator: ", ") + "}}", to: "pipeline.json")
    }

    // MARK: - Templates

    private static let built = Mutex<[String: TemporaryDirectory]>([:])

    /// A fresh copy of `template`, built the first time it is asked for.
    static func copy(of template: VerifyKindTests.Template) throws -> Project {
        let source = try built.withLock { built in
            let name = "\(template)"
            if let folder = built[name] { return folder }
            let folder = try make(template)
            built[name] = folder
            return folder
        }
        let copy = TemporaryDirectory("ladder-kind")
        try copy.copyFiles(from: source)
        return Project(folder: copy)
    }

    private static func make(_ template: VerifyKindTests.Template) throws -> TemporaryDirectory {
        TestImages.start()
        let folder = TemporaryDirectory("ladder-kind-template")
        switch template {
        case .standard:
            try folder.write(TestImages.gradientJPEG(width: 700, height: 467, seed: 3), to: "photos/photo.jpg")
            try folder.write(TestImages.halfTransparentPNG(width: 200, height: 150), to: "photos/logo.png")
            try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        case .siblings:
            try folder.write(TestImages.gradientJPEG(width: 700, height: 467, seed: 3), to: "photos/photo.jpg")
            let formats = #", "formats": ["avif", "jxl"]}"#
            try folder.write(
                #"{"sources": ["photos"], "variants": {"#
                    + defaultVariants.map { String($0.dropLast()) + formats }.joined(separator: ", ") + "}}",
                to: "pipeline.json")
        case .customScript:
            try folder.write(waves(width: 1600, height: 1200), to: "photos/waves.jpg")
            try folder.write(
                #"{"sources": ["photos"], "variants": {"# + defaultVariants[1...].joined(separator: ", ") + ", "
                    + fixedFull(VerifyKindTests.customScript) + "}}",
                to: "pipeline.json")
        }
        let result = runLadder(["build", "--quiet", "--config", folder.path("pipeline.json")])
        try #require(result.code == .success, "\(result.error)")
        let clean = runLadder(["verify", "--json", "--config", folder.path("pipeline.json")])
        try #require(clean.code == .success, "the template verifies: \(clean.output)")
        return folder
    }

    /// Grey waves, sin(x/8)·cos(y/8), in an RGB JPEG: smooth at a scale libjpeg's block smoothing
    /// of the DC alone guesses well.
    static func waves(width: Int, height: Int) throws -> [UInt8] {
        try AdversarialImages.rgb(width, height) { x, y in
            let value = UInt8(128 + 90 * sin(Double(x) / 8) * cos(Double(y) / 8))
            return [value, value, value]
        }.encoded(as: ".jpg[Q=95]")
    }

    // MARK: - The manifest

    func manifest() throws -> Manifest {
        try Manifest(jsonData: Data(folder.read(Self.manifest)))
    }

    /// Changes the manifest and writes it with its index files, as someone covering their tracks
    /// would: only what the change itself breaks shows. The closure gets the manifest and a
    /// function from a source's name ("photo") to its image's SHA1.
    func edit(_ change: (inout Manifest, (String) -> String) throws -> Void) throws {
        var manifest = try manifest()
        let keys = manifest.images.mapValues { $0.sources }
        try change(&manifest) { name in keys.first { $0.value.contains { $0.contains("/\(name).") } }?.key ?? name }
        try folder.write([UInt8](manifest.jsonData()), to: Self.manifest)
        _ = try ManifestIndexWriter(manifestFolder: Directory.open(path("build/variants"))).write(manifest)
    }

    /// The file of variant `name` of the image whose source is `source` ("photo"), relative to
    /// the project.
    func file(_ source: String, _ name: String) throws -> String {
        let manifest = try manifest()
        let entry = try #require(manifest.images.values.first { $0.sources.contains { $0.contains("/\(source).") } })
        return "build/variants/" + (try #require(entry.variants[name]).path)
    }

    func read(_ source: String, _ name: String) throws -> [UInt8] {
        try folder.read(file(source, name))
    }

    /// Writes `bytes` as the file of variant `name` and records it in the manifest as a build
    /// would (bytes, SHA-256, frame size, scans, scan ends, script), so that only what differs
    /// from the recipe shows.
    func plant(_ bytes: [UInt8], as name: String, of source: String) throws {
        try folder.write(bytes, to: file(source, name))
        let structure = try? JPEGStructure(parsing: bytes)
        try edit { manifest, key in
            guard var variant = manifest.images[key(source)]?.variants[name] else { return }
            variant.bytes = bytes.count
            variant.sha256 = Checksum.hex(.sha256, of: bytes)
            if let structure {
                variant.width = structure.width
                variant.height = structure.height
                variant.progressive = structure.isProgressive
                variant.scans = structure.scans.count
                variant.scanEnds = structure.isProgressive ? JPEGStructure.scanEnds(of: bytes) : nil
                variant.script = structure.isProgressive ? ScanScript(structure.scans.map(\.script)).description : nil
            }
            manifest.images[key(source)]?.variants[name] = variant
        }
    }

    /// The manifest entry of variant `name`'s `format` sibling, of the photo.
    func sibling(_ format: String, of name: String) throws -> Manifest.FormatEntry? {
        try manifest().images.values.first { $0.sources.contains { $0.contains("/photo.") } }?.variants[name]?
            .formats?[format]
    }

    /// Writes `bytes` as the photo's `format` sibling of variant `name` and records its bytes and
    /// SHA-256 as a build would, so that only what the file itself is shows.
    func plantSibling(_ bytes: [UInt8], as format: String, of name: String) throws {
        let entry = try #require(try sibling(format, of: name), "the template has a \(format) \(name)")
        try folder.write(bytes, to: "build/variants/" + entry.path)
        try edit { manifest, key in
            manifest.images[key("photo")]?.variants[name]?.formats?[format] = Manifest.FormatEntry(
                path: entry.path, bytes: bytes.count, sha256: Checksum.hex(.sha256, of: bytes))
        }
    }

    // MARK: - Files made otherwise

    static func reencoded(_ jpeg: [UInt8], _ suffix: String) throws -> [UInt8] {
        try Image(decoding: jpeg).encoded(as: suffix)
    }

    /// `jpeg` saved by libvips with metadata that ladder's policy removes.
    static func withMetadata(
        _ jpeg: [UInt8], strings: [String: String] = [:], integers: [String: Int] = [:]
    ) throws -> [UInt8] {
        try Image(decoding: jpeg).withMetadata(strings: strings, integers: integers).encoded(as: ".jpg[Q=82]")
    }

    /// `jpeg` with a segment inserted: an APPn segment right after the SOI marker, or a segment
    /// with `marker` before scan `beforeScan` (1-based).
    static func withSegment(
        _ jpeg: [UInt8], app: UInt8? = nil, marker: UInt8 = 0, payload: [UInt8], beforeScan: Int? = nil
    ) throws -> [UInt8] {
        let segment =
            [0xFF, app ?? marker] + [UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        var at = 2
        if let beforeScan {
            let structure = try JPEGStructure(parsing: jpeg)
            at = structure.scans[beforeScan - 1].markerOffset
        }
        return Array(jpeg[..<at]) + segment + Array(jpeg[at...])
    }

    /// `jpeg` with bytes after its last scan's entropy-coded data, before the end-of-image
    /// marker: libjpeg decodes it, warning of extraneous bytes.
    static func corrupted(_ jpeg: [UInt8]) throws -> [UInt8] {
        let end = try #require(try JPEGStructure(parsing: jpeg).endOfImage) - 2
        return Array(jpeg[..<end]) + [0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78] + Array(jpeg[end...])
    }

    /// `jpeg` arithmetic-coded by jpegtran with the same scans (SOF10 for a progressive file).
    func arithmetic(_ jpeg: [UInt8]) throws -> [UInt8] {
        let jpegtran = try ExternalTools.require(ExternalTools.jpegtran, ExternalTools.jpegtranPackage)
        let structure = try JPEGStructure(parsing: jpeg)
        try folder.write(
            structure.scans.map { "\($0.script);" }.joined(separator: "\n"), to: "scans.txt")
        return try ExternalTools.run(jpegtran, ["-arithmetic", "-scans", path("scans.txt")], input: jpeg)
    }
}
