import Foundation
import LadderCore
import LadderImaging
import LadderManifest
import Testing

/// Real camera and odd-format files from ../shared/corpus, when it is there.
@Suite("Corpus", .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)), .serialized)
struct CorpusTests {
    /// Builds the four corpus folders once for the whole suite.
    static let build: (folder: TemporaryDirectory, status: Int32, manifest: Manifest)? = {
        guard let executable = LadderExecutable.path, Corpus.isAvailable else { return nil }
        _ = executable
        let folder = TemporaryDirectory("ladder-corpus")
        let sources = ["orientation", "exif", "formats", "photos"].compactMap { Corpus.path($0) }
        let json = "{\"sources\": [" + sources.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        try! folder.write(json, to: "pipeline.json")
        let result = try! LadderExecutable.run(["build", "--quiet"], in: folder.path)
        let manifest = try! Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        return (folder, result.status, manifest)
    }()

    static func built() throws -> (folder: TemporaryDirectory, status: Int32, manifest: Manifest) {
        _ = try Corpus.required()
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        return try #require(build)
    }

    @Test(
        "every decodable file is built, with exactly 5 scans in the full variant and no metadata left",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func everyFileBuilt() throws {
        let (folder, status, manifest) = try Self.built()
        #expect(status == 1, "the corpus holds files libvips cannot decode, so some fail")
        let sourceCount = manifest.images.values.reduce(0) { $0 + $1.sources.count } + manifest.failures.count
        let expected = ["orientation", "exif", "formats", "photos"].reduce(0) { $0 + Corpus.files(in: $1).count }
        #expect(sourceCount == expected, "every file is either built or listed as a failure")
        #expect(manifest.failures.count <= 8)
        for reason in manifest.failures.values { #expect(!reason.isEmpty) }
        TestImages.start()
        for (sha1, entry) in manifest.images {
            let full = try #require(entry.variants["full"])
            let bytes = try folder.read("build/variants/" + full.path)
            // As libjpeg-turbo's own decoder reads the file (djpeg).
            let read = try ExternalTools.djpegStructure(bytes)
            #expect(read.isProgressive && read.scans.count == 5, "\(entry.sources[0])")
            #expect(read.script == full.script, "\(entry.sources[0]): the script the manifest records")
            #expect(read.sampling.count == 3 || read.sampling.count == 1, "sRGB or grayscale")
            #expect(read.applicationMarkers == [0xE0], "\(entry.sources[0]): no EXIF, GPS or ICC left")
            #expect(full.width <= 2560 && full.height <= 2560)
            #expect(full.width <= entry.width && full.height <= entry.height, "never upscaled")
            #expect(Manifest.isSHA1(sha1))
        }
    }

    @Test("every orientation of the same photo comes out the same upright picture")
    func orientations() throws {
        let (folder, _, manifest) = try Self.built()
        TestImages.start()
        func full(_ name: String) throws -> Image {
            let entry = try #require(
                manifest.images.values.first { $0.sources.contains("orientation/\(name)") })
            return try Image(decoding: folder.read("build/variants/" + entry.variants["full"]!.path))
        }
        for shape in ["Landscape", "Portrait"] {
            let reference = try full("\(shape)_1.jpg")
            for orientation in 2...8 {
                let image = try full("\(shape)_\(orientation).jpg")
                #expect(image.size == reference.size, "\(shape)_\(orientation)")
                // Compare a grid of points: each should match the upright reference closely.
                var differences = 0
                for gx in 1..<8 {
                    for gy in 1..<8 {
                        let x = reference.width * gx / 8
                        let y = reference.height * gy / 8
                        let a = try image.pixel(x: x, y: y)
                        let b = try reference.pixel(x: x, y: y)
                        if zip(a, b).contains(where: { abs(Int($0) - Int($1)) > 40 }) { differences += 1 }
                    }
                }
                #expect(differences <= 3, "\(shape)_\(orientation): \(differences) of 49 points differ from \(shape)_1")
            }
        }
    }

    @Test(
        "every image's upright size and orientation are what ExifTool read (the corpus manifest), and each variant is that size fitted in its box"
    )
    func sizesAgainstCorpusManifest() throws {
        let (_, _, manifest) = try Self.built()
        let data = try Data(contentsOf: URL(fileURLWithPath: try #require(Corpus.path("manifest.json"))))
        let records = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let exifByFile = Dictionary(
            records.compactMap { record in
                (record["file"] as? String).flatMap { file in (record["exif"] as? [String: Any]).map { (file, $0) } }
            }
        ) { first, _ in first }
        let vipsByFile = Dictionary(
            records.compactMap { record in
                (record["file"] as? String).flatMap { file in (record["vips"] as? [String: Any]).map { (file, $0) } }
            }
        ) { first, _ in first }
        let boxes = ["full": 2560, "large_thumb": 640, "small_thumb": 160]
        // Where ExifTool reads what no decoder applies, or misses what one does (as the corpus
        // manifest's notes say): the rotation of an AVIF lives in HEIF transform boxes, which
        // libheif applies (libvips' size there is upright); a PNG's EXIF stored ImageMagick's way,
        // in a text chunk, which libvips and browsers ignore.
        let heifTransforms: Set = ["orientation/pillow_avif_rot1mir0.avif"]
        let textChunkEXIF: Set = ["orientation/exif_imagemagick_orientation.png"]
        var checked = 0
        for entry in manifest.images.values {
            for source in entry.sources {
                let exif = try #require(exifByFile[source], "\(source) is in the corpus manifest")
                var stored = try (#require(exif["ImageWidth"] as? Int), #require(exif["ImageHeight"] as? Int))
                if heifTransforms.contains(source), let vips = vipsByFile[source] {
                    stored = try (
                        #require(Int(vips["width"] as? String ?? "")), #require(Int(vips["height"] as? String ?? ""))
                    )
                }
                // Values outside 1...8 (Landscape_0's 0) mean no transformation.
                let tagged = (exif["Orientation"] as? Int).flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
                let orientation = textChunkEXIF.contains(source) ? 1 : tagged
                let upright = orientation >= 5 ? (stored.1, stored.0) : stored
                let size: [Int] = [upright.0, upright.1]
                #expect([entry.width, entry.height] == size, "\(source): upright size")
                #expect((entry.orientation ?? 1) == orientation, "\(source): orientation")
                for (name, variant) in entry.variants {
                    let box = try #require(boxes[name])
                    // Fitted in the box with the aspect ratio kept (each side rounded to the nearest
                    // pixel, at least 1), never enlarged.
                    let scale = min(1, Double(box) / Double(upright.0), Double(box) / Double(upright.1))
                    let expected = size.map { max(1, Int((Double($0) * scale).rounded())) }
                    #expect([variant.width, variant.height] == expected, "\(source): \(name)")
                }
                checked += 1
            }
        }
        #expect(checked == manifest.images.values.reduce(0) { $0 + $1.sources.count })
        #expect(checked >= 100)
    }

    @Test("GPS is recorded as removed for the GPS-tagged camera files")
    func gps() throws {
        let (_, _, manifest) = try Self.built()
        let iphone = try #require(
            manifest.images.values.first { $0.sources.contains { $0.hasSuffix("Apple_iPhone_6.jpg") } })
        #expect(iphone.gpsRemoved == true)
        #expect(iphone.captured?.hasPrefix("20") == true)
    }

    @Test("a second build over the corpus changes no file")
    func secondBuild() throws {
        let (folder, _, _) = try Self.built()
        let before = folder.modificationTimes(under: "build")
        let result = try LadderExecutable.run(["build", "--json"], in: folder.path)
        #expect(result.output.contains("\"built\":0"))
        #expect(result.output.contains("\"written\":0"))
        #expect(folder.modificationTimes(under: "build") == before)
    }

    @Test("the default build passes verify --deep --replay with no problem: sources that failed are accounted for")
    func replayPasses() throws {
        let (folder, _, manifest) = try Self.built()
        let result = try LadderExecutable.run(["verify", "--deep", "--replay", "--json"], in: folder.path)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            Comment(rawValue: result.output))
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(problems.isEmpty, "\(problems)")
        #expect(result.status == 0 && report["ok"] as? Bool == true, "sources listed as failed are not problems")
        let replays = try #require(report["replay"] as? [[String: Any]])
        #expect(replays.count == manifest.images.count, "every full-size file was replayed")
    }
}

/// `ladder replay` over the corpus's real JPEGs, when the corpus is there.
@Suite("Corpus replay", .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)))
struct CorpusReplayTests {
    static func jpegs() throws -> [String] {
        _ = try Corpus.required()
        return ["formats", "exif", "orientation", "photos"].flatMap { Corpus.files(in: $0) }
            .filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }
    }

    @Test("every progressive JPEG gives its scans at rising offsets, ending identical to a one-shot decode")
    func progressiveFiles() throws {
        var progressiveCount = 0
        for path in try Self.jpegs() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            guard let structure = try? JPEGStructure(parsing: bytes), structure.isProgressive,
                structure.endOfImage != nil
            else { continue }
            progressiveCount += 1
            let report = ProgressiveReplay().replay(bytes, path: path)
            #expect(report.scans.count == structure.scans.count, "\(path)")
            let offsets = report.scans.map(\.endOffset)
            #expect(offsets == offsets.sorted() && Set(offsets).count == offsets.count, "\(path): offsets rise")
            #expect(report.scans.last?.psnr == 99 && report.matchesOneShotDecode, "\(path)")
            #expect(
                report.scans.first.map { $0.ssim < 1 } ?? false, "\(path): the first picture is rougher than the last")
        }
        #expect(progressiveCount >= 5, "the corpus has progressive JPEGs")
    }

    @Test(
        "every YCbCr or grayscale JPEG's last paint is the picture djpeg decodes from the whole file",
        .enabled(if: ExternalTools.runs(with: ExternalTools.djpeg), ExternalTools.absence(ExternalTools.djpegPackage)))
    func finalPictureIsOneShotDecode() throws {
        var compared = 0
        for path in try Self.jpegs() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            guard let structure = try? JPEGStructure(parsing: bytes), structure.endOfImage != nil,
                [1, 3].contains(structure.components.count)
            else { continue }
            let (report, final) = ProgressiveReplay().replayKeepingFinal(bytes, path: path)
            // Damaged files are left out: djpeg fails on the warnings they raise.
            guard let final, report.problems.isEmpty else {
                #expect(final != nil || !report.problems.isEmpty, "\(path): no final picture and no reason")
                continue
            }
            let oracle = try ExternalTools.djpegLuma(bytes)
            #expect(final.width == oracle.width && final.height == oracle.height, "\(path)")
            #expect(final.luma() == oracle.samples, "\(path)")
            compared += 1
        }
        #expect(compared >= 10, "the corpus has YCbCr JPEGs")
    }

    @Test("every baseline JPEG gives a single picture, once its image data is all there")
    func baselineFiles() throws {
        var baselineCount = 0
        for path in try Self.jpegs() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            guard let structure = try? JPEGStructure(parsing: bytes), !structure.isProgressive, !structure.isArithmetic,
                structure.endOfImage != nil, structure.width * structure.height <= 4_000_000
            else { continue }
            let report = ProgressiveReplay().replay(bytes, path: path)
            // 12-bit and lossless JPEGs, which libjpeg-turbo 2.1 does not decode.
            guard !report.problems.contains(where: { $0.kind.rawValue == "undecodable" }) else { continue }
            baselineCount += 1
            #expect(report.scans.count == 1, "\(path)")
            // Some cameras append data after the image; the picture shows at its end-of-image.
            let imageEnd = try #require(structure.endOfImage)
            let scan = try #require(report.scans.first, "\(path): \(report.problems)")
            let data = try #require(structure.scans.first)
            #expect(scan.endOffset >= data.endOffset && scan.endOffset <= imageEnd, "\(path)")
            #expect(report.firstShownAt == scan.shownAt, "\(path)")

        }
        #expect(baselineCount >= 10)
    }
}

/// The corpus's broken and hostile files beside good ones, built by the real executable.
@Suite("Corpus of bad files", .enabled(if: Corpus.runs, Comment(rawValue: Corpus.absenceNote)))
struct CorpusBadFilesTests {
    @Test("a folder mixing bad files with good photos builds the good ones, lists every bad one, and verifies")
    func badFiles() throws {
        _ = try Corpus.required()
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        TestImages.start()
        let folder = TemporaryDirectory("ladder-bad")
        for index in 0..<3 {
            try folder.write(
                TestImages.gradientJPEG(width: 800, height: 600, seed: index), to: "good/photo\(index).jpg")
        }
        let bad = try #require(Corpus.path("bad"))
        try folder.write("{\"sources\": [\"good\", \"\(bad)\"]}", to: "pipeline.json")
        let result = try LadderExecutable.run(["build", "--json"], in: folder.path)
        #expect(result.status == 1)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let failed = try #require(summary["failed"] as? [[String: String]])
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        let goodBuilt = manifest.images.values.flatMap(\.sources).filter { $0.hasPrefix("good/") }
        #expect(goodBuilt.count == 3)
        let badFiles = Corpus.files(in: "bad").filter {
            SourceFilter.imageExtensions.matches(($0 as NSString).lastPathComponent)
        }
        let accounted = Set(manifest.failures.keys).union(manifest.images.values.flatMap(\.sources))
        // The corpus folder lies outside the project: the manifest names it by its own name.
        for file in badFiles {
            let named = "bad/" + (file as NSString).lastPathComponent
            #expect(accounted.contains(named), "\(named) is either built or listed as a failure")
        }
        #expect(!accounted.contains { $0.hasPrefix("/") || $0.hasPrefix("..") }, "no absolute or climbing path")
        #expect(failed.count == manifest.failures.count)
        for failure in failed {
            #expect(failure["reason"]?.isEmpty == false && manifest.failures[failure["source"]!] == failure["reason"])
        }
        let verify = try LadderExecutable.run(["verify", "--deep", "--replay"], in: folder.path)
        #expect(verify.status == 0, "\(verify.output)")
    }
}
