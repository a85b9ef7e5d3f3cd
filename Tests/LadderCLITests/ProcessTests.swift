import Foundation
import LadderCore
import LadderImaging
import LadderManifest
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

    @Test("build --json to a full disk or a closed pipe exits 74 instead of 0")
    func lostResults() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 1, size: 200)
        try #require(FileManager.default.isWritableFile(atPath: "/dev/full"), "needs /dev/full")
        for target in ["full disk", "closed pipe"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: LadderExecutable.path!)
            process.arguments = ["build", "--json"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
            let errors = Pipe()
            process.standardError = errors
            let pipe = Pipe()
            if target == "full disk" {
                process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
            } else {
                process.standardOutput = pipe
                try pipe.fileHandleForReading.close()  // nobody will read the results
            }
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "\(target): no death by SIGPIPE")
            #expect(process.terminationStatus == 74, "\(target): \(message)")
            #expect(message.contains("cannot write the results to standard output"), "\(target)")
        }
    }

    /// GNU time, which reports a process's peak resident memory, or nil when it is not installed.
    static let gnuTime: String? =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil

    /// Runs ladder under /usr/bin/time -v and returns its exit status and peak resident memory.
    static func measured(
        _ arguments: [String], in folder: TemporaryDirectory
    ) throws -> (
        status: Int32, peakKilobytes: Int, output: String, error: String
    ) {
        let result = try ChildProcess.run("/usr/bin/time", ["-v", LadderExecutable.path!] + arguments, in: folder.path)
        let line = result.error.split(separator: "\n").first { $0.contains("Maximum resident set size") }
        let peak = line.flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        return (result.status, peak ?? Int.max, String(decoding: result.output, as: UTF8.self), result.error)
    }

    @Test(
        "verify refuses a variant declaring 20000x20000 and hashes a 300 MB source in bounded memory",
        .enabled(if: ExternalTools.runs(with: ProcessTests.gnuTime), ExternalTools.absence("GNU time (/usr/bin/time)")))
    func verifyMemory() throws {
        _ = try ExternalTools.require(Self.gnuTime, "GNU time (/usr/bin/time)")
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 2, size: 400)
        // A source over limits.maxFileBytes (sparse: it costs no disk), which the build lists as
        // failed without reading it, and verify must hash to tell whether it changed.
        let big = folder.path("photos/huge-scan.jpg")
        #expect(FileManager.default.createFile(atPath: big, contents: Data([0xFF, 0xD8, 0xFF])))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 300 << 20)
        try handle.close()
        #expect(try LadderExecutable.run(["build"], in: folder.path).status == 1)
        // One full-size variant replaced by a file that declares 20000x20000 pixels.
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        let full = try #require(manifest.images.values.compactMap { $0.variants["full"] }.first)
        try folder.write(TestImages.jpegDeclaring(width: 20000, height: 20000), to: "build/variants/" + full.path)

        for arguments in [["verify", "--json"], ["verify", "--json", "--replay"]] {
            let run = try Self.measured(arguments, in: folder)
            #expect(run.status == 1, "\(arguments): \(run.output)")
            #expect(run.output.contains("\"kind\":\"too-large\""), "\(arguments)")
            #expect(run.output.contains("\"kind\":\"over-limits\""), "\(arguments)")
            // Far below the 300 MB source and the 1.2 GB the declared picture would take.
            #expect(run.peakKilobytes < 160_000, "\(arguments): peak RSS \(run.peakKilobytes) kB")
        }
    }

    @Test(
        "verify reads a manifest of 4,800 images and 120 MB in less memory than the manifest's size",
        .enabled(if: ExternalTools.runs(with: ProcessTests.gnuTime), ExternalTools.absence("GNU time (/usr/bin/time)")))
    func verifyStreamsTheManifest() throws {
        _ = try ExternalTools.require(Self.gnuTime, "GNU time (/usr/bin/time)")
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 1, size: 300)
        #expect(try LadderExecutable.run(["build"], in: folder.path).status == 0)
        let built = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        let (key, entry) = try #require(built.images.first)
        // Each image is the built one under another SHA1, padded with 25 kB of a key readers
        // ignore, so that the manifest is large while its images' files are few.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = String(decoding: try encoder.encode(entry), as: UTF8.self).dropFirst()
        let padded = "{\"notes\":\"" + String(repeating: "x", count: 25_000) + "\"," + body
        let count = 4_800
        var images = (0..<count - 1).map { "\"" + String(format: "%040x", $0) + "\":" + padded }
        images.append("\"" + key + "\":" + padded)
        var top = built
        top.images = [:]
        let text = String(decoding: try encoder.encode(top), as: UTF8.self)
            .replacingOccurrences(of: "\"images\":{}", with: "\"images\":{" + images.joined(separator: ",") + "}")
        try folder.write(text, to: "build/variants/manifest.json")

        let run = try Self.measured(["verify", "--json"], in: folder)
        #expect(
            run.output.contains("\"images\":\(count)"),
            "exit \(run.status): \(run.output.prefix(300)) \(run.error.suffix(600))")
        // The built image's files are all there and intact: every image that names them passes.
        #expect(!run.output.contains("\"kind\":\"missing\""))
        #expect(!run.output.contains("\"kind\":\"checksum\""))
        #expect(run.output.contains("\"kind\":\"index\""), "the index is the one image's")
        #expect(
            run.peakKilobytes < text.utf8.count / 1024,
            "peak RSS \(run.peakKilobytes) kB for a manifest of \(text.utf8.count / 1024) kB")
    }

    @Test(
        "merge joins 2 shards of 2,400 images and 60 MB each in less memory than their size, as a whole merge would",
        .enabled(if: ExternalTools.runs(with: ProcessTests.gnuTime), ExternalTools.absence("GNU time (/usr/bin/time)")))
    func mergeStreamsThePartialManifests() throws {
        _ = try ExternalTools.require(Self.gnuTime, "GNU time (/usr/bin/time)")
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 2, size: 300)
        for shard in ["1/2", "2/2"] {
            #expect(try LadderExecutable.run(["build", "--shard", shard], in: folder.path).status == 0)
        }
        let names = ["manifest.shard-1-of-2.json", "manifest.shard-2-of-2.json"]
        var partials = try names.map { try Manifest(jsonData: Data(folder.read("build/variants/" + $0))) }
        let built = try #require(partials.flatMap(\.images).first)
        // Each shard gets images of its own (the first 64 bits of the SHA1, modulo 2, pick the
        // shard), each the built image under another SHA1 and another source, padded with 25 kB
        // of a key readers ignore, so that the partial manifests are large.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let count = 4_800
        var sources = partials.flatMap { $0.images.values.flatMap(\.sources) }
        var padded: [[(key: String, json: String)]] = [[], []]
        for number in 0..<count {
            var entry = built.value
            entry.sources = ["photos/padding-\(number).png"]
            sources += entry.sources
            let body = String(decoding: try encoder.encode(entry), as: UTF8.self).dropFirst()
            let key = String(format: "%016llx", UInt64(number)) + String(repeating: "0", count: 24)
            padded[number % 2].append((key, "{\"notes\":\"" + String(repeating: "x", count: 25_000) + "\"," + body))
        }
        sources.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let sourcesSHA1 = Checksum.hex(.sha1, of: Array(sources.map { $0 + "\n" }.joined().utf8))
        var total = 0
        for index in partials.indices {
            var top = partials[index]
            let images = top.images.map {
                (key: $0.key, json: String(decoding: try! encoder.encode($0.value), as: UTF8.self))
            }
            top.images = [:]
            top.shard?.sources = sources.count
            top.shard?.sourcesSHA1 = sourcesSHA1
            let members = (images + padded[index]).sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.json)" }
            let text = String(decoding: try encoder.encode(top), as: UTF8.self)
                .replacingOccurrences(of: "\"images\":{}", with: "\"images\":{" + members.joined(separator: ",") + "}")
            try folder.write(text, to: "build/variants/" + names[index])
            total += text.utf8.count
            partials[index] = try Manifest(jsonData: Data(text.utf8))
        }
        // What merging the whole manifests gives, which the merge must write byte for byte.
        let (whole, problems) = ManifestMerger.merge(Array(zip(names, partials)).map { ($0.0, $0.1) })
        #expect(problems.isEmpty, "\(problems)")
        let expected = try #require(whole).jsonData()

        let run = try Self.measured(["merge", "--json", "--keep-partials"], in: folder)
        #expect(run.status == 0, "\(run.output.prefix(300))")
        #expect(try Data(folder.read("build/variants/manifest.json")) == expected)
        #expect(
            run.peakKilobytes < total / 1024,
            "peak RSS \(run.peakKilobytes) kB for partial manifests of \(total / 1024) kB")
    }

    @Test("verify exits 74 when a file it must check exists but cannot be read")
    func unreadableVariant() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 1, size: 300)
        #expect(try LadderExecutable.run(["build"], in: folder.path).status == 0)
        let manifest = try Manifest(jsonData: Data(folder.read("build/variants/manifest.json")))
        let full = try #require(manifest.images.values.compactMap { $0.variants["full"] }.first)
        #expect(chmod(folder.path("build/variants/" + full.path), 0) == 0)
        // root reads any file: run verify as an unprivileged user then.
        let asUser = ["--reuid=65534", "--regid=65534", "--clear-groups", LadderExecutable.path!, "verify", "--json"]
        let result = try ChildProcess.run(
            getuid() == 0 ? "/usr/bin/setpriv" : LadderExecutable.path!,
            getuid() == 0 ? asUser : ["verify", "--json"], in: folder.path)
        let output = String(decoding: result.output, as: UTF8.self)
        #expect(result.status == 74, "\(output) \(result.error)")
        #expect(output.contains("\"kind\":\"unreadable\""))
        #expect(output.contains("Permission denied"))
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
        // The build says it waits; until the lock is released it has written nothing.
        var said = ""
        while !said.contains("waiting for another ladder build") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        #expect(said.contains("waiting for another ladder build"), "\(said)")
        #expect(process.isRunning, "the second build waits")
        #expect(!folder.exists("build/variants/manifest.json"))
        holder = nil  // closing the descriptor releases the lock, as a dying process's would
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(folder.exists("build/variants/manifest.json"))
    }

    @Test("a decode that runs past the time limit is stopped, and the batch goes on")
    func timeLimit() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 2, size: 300)
        // Work whose size is set here, not a guess at the machine's speed: an 8000x8000
        // progressive file of 5,000 scans (reliability notes, E7: 4,099 such scans took libjpeg
        // 25 s), which no machine decodes within half a second, against two 300x300 photos that
        // take a few milliseconds each, a hundred times less than the limit.
        try folder.write(TestImages.scanBombJPEG(scans: 5000, side: 8000), to: "photos/slow.jpg")
        try folder.write(
            #"{"sources": ["photos"], "limits": {"timeoutSeconds": 0.5, "maxScans": 10000}}"#, to: "pipeline.json")
        let result = try LadderExecutable.run(["build", "--json"], in: folder.path)
        #expect(result.status == 1)
        #expect(result.output.contains("\"built\":2"))
        #expect(result.output.contains("took longer than the time limit of 0.5 s"))
    }

    @Test(
        "a full disk stops the build with 74 and the previous manifest and files stay valid",
        .enabled(if: DiskImage.canMountTmpfs, "cannot mount a tmpfs here (needs root); scripts/diskfull covers it"))
    func diskFull() throws {
        try #require(LadderExecutable.path != nil, Comment(rawValue: LadderExecutable.absenceNote))
        let folder = try Self.project(photos: 2, size: 600)
        let mount = folder.path("small-disk")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        try #require(DiskImage.mountTmpfs(at: mount, megabytes: 2), "the tmpfs mounted for the probe mounts again")
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
        let finished = try clean.read("build/variants/manifest.json")
        // Kills at moments the build itself marks, not at guessed times: once it has written
        // its first file, a fifth of the files a clean build leaves, and two thirds of them.
        let files = clean.files().count
        var landedMidBuild = 0
        for threshold in [0, files / 5, files * 2 / 3] {
            let before = folder.modificationTimes()
            let written = { folder.modificationTimes().filter { before[$0.key] != $0.value }.count }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: LadderExecutable.path!)
            process.arguments = ["build", "--quiet"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
            try process.run()
            while process.isRunning && written() <= threshold { Thread.sleep(forTimeInterval: 0.005) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let moment = "\(written()) files written"
            #expect(try Self.manifestIsIntact(folder), "after a kill once the build \(moment)")
            // The kill landed in the middle of a build when it ended the process (not a build
            // that had already exited) before the build had committed its manifest.
            let killed = process.terminationReason == .uncaughtSignal
            let committed = (try? folder.read("build/variants/manifest.json")) == finished
            if killed && !committed { landedMidBuild += 1 }
        }
        #expect(landedMidBuild >= 1, "at least one kill interrupted a build before it finished")
        let completed = try LadderExecutable.run(["build"], in: folder.path)
        #expect(completed.status == 0)
        #expect(try Self.manifestIsIntact(folder))
        #expect(
            try folder.read("build/variants/manifest.json") == clean.read("build/variants/manifest.json"),
            "the interrupted builds end exactly where a clean build does")
        #expect(!folder.files(under: "build/variants").contains { $0.contains(".ladder-tmp-") })
    }
}
