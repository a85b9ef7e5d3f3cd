import Foundation
import LadderCLI
import Testing

/// examples/upload against a real S3-compatible server (moto's, on the loopback address): what
/// an app sees over HTTP after each upload, and what it could have seen during one.
@Suite("Upload examples", .serialized)
struct UploadTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/upload").path

    /// Where scripts/bootstrap puts the Python tools when the system has none.
    static let toolsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/upload-tools/bin").path

    /// `name` on the PATH or in the bootstrap's tools folder.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + [toolsFolder])
            .map { ($0 as NSString).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let missingTools = ["moto_server", "aws", "rclone", "curl", "sha256sum"].filter { tool($0) == nil }
    static let missingNote = Comment(
        rawValue: "not installed: \(missingTools.joined(separator: ", ")); scripts/bootstrap installs them")

    @Test(
        "upload-aws and upload-rclone: variants first, the manifest last, stale variants only after it and their grace",
        .enabled(if: missingTools.isEmpty || ExternalTools.inCI, missingNote),
        arguments: ["upload-aws", "upload-rclone"])
    func upload(_ script: String) throws {
        try #require(Self.missingTools.isEmpty, Self.missingNote)
        TestImages.start()
        let server = try S3Server()
        defer { server.stop() }
        let bucket = "site"
        try server.makePublicBucket(bucket)
        let target = script == "upload-aws" ? "s3://\(bucket)/app" : "moto:\(bucket)/app"
        let base = "\(server.endpoint)/\(bucket)/app"

        let project = TemporaryDirectory("ladder-upload")
        try project.write(
            #"{"sources": ["photos"], "variants": {"#
                + #""small_thumb": {"maxWidth": 40, "maxHeight": 40, "quality": 80}, "#
                + #""full": {"maxWidth": 200, "maxHeight": 200, "quality": 85, "progressive": {"scans": 5}, "#
                + #""formats": ["avif", "jxl"]}}}"#,
            to: "pipeline.json")
        for index in 0..<3 {
            try project.write(TestImages.gradientJPEG(width: 240, height: 160, seed: index), to: "photos/\(index).jpg")
        }
        let output = project.path("build/variants")
        func build() throws -> [String: String] {
            let code = Ladder.run(
                arguments: ["ladder", "build", "--quiet", "--config", project.path("pipeline.json")],
                console: RecordingConsole().console, rendering: .tests)
            #expect(code == .success)
            return try Self.variants(inManifestAt: output + "/manifest.json")
        }
        func upload(grace: Int) throws {
            let result = try Self.run(
                Self.examples + "/" + script, [output, target], environment: server.environment(grace: grace))
            #expect(result.status == 0, "\(script): \(result.error)")
        }

        // First upload: everything the manifest lists is served, byte for byte.
        let first = try build()
        try upload(grace: 0)
        #expect(try Self.variants(inManifestAt: server.fetch(base + "/manifest.json").file) == first)
        let headers = try server.fetch(base + "/manifest.json").headers.lowercased()
        #expect(headers.contains("cache-control: public, max-age=60"), "\(headers)")
        for (path, sha256) in first {
            let fetched = try server.fetch(base + "/" + path)
            #expect(fetched.status == 200, "\(path)")
            #expect(try Self.sha256(fetched.file) == sha256, "\(path)")
            #expect(fetched.headers.lowercased().contains("immutable"), "\(path): \(fetched.headers)")
            let type = Self.contentTypes[String(path.split(separator: ".").last ?? "")] ?? "?"
            #expect(fetched.headers.lowercased().contains("content-type: \(type)"), "\(path): \(fetched.headers)")
        }
        #expect(first.keys.contains { $0.hasSuffix(".avif") } && first.keys.contains { $0.hasSuffix(".jxl") })

        // A change: one photo replaced, one added. Upload with a grace period: the new manifest
        // and all it lists are served, and the old variants stay for apps holding the old one.
        try project.write(TestImages.gradientJPEG(width: 240, height: 160, seed: 7), to: "photos/0.jpg")
        try project.write(TestImages.gradientJPEG(width: 240, height: 160, seed: 8), to: "photos/3.jpg")
        let second = try build()
        let stale = Set(first.keys).subtracting(second.keys)
        #expect(stale.count >= 2 && second.count >= 8)
        let mark = server.logLength()
        let watcher = try ManifestWatcher(base: base, server: server)
        try upload(grace: 3600)
        let seen = watcher.stop()
        #expect(try Self.variants(inManifestAt: server.fetch(base + "/manifest.json").file) == second)
        for (path, sha256) in second {
            #expect(try Self.sha256(server.fetch(base + "/" + path).file) == sha256, "\(path)")
        }
        for path in stale { #expect(try server.fetch(base + "/" + path).status == 200, "kept in grace: \(path)") }
        #expect(seen.polls >= 1, "the watcher read the manifest during the upload")
        #expect(seen.missing.isEmpty, "the live manifest listed a missing variant: \(seen.missing)")

        // The order the server received: every variant of the new manifest stored before it,
        // nothing deleted before it.
        let requests = server.requests(since: mark, under: "/\(bucket)/app/")
        let manifestPut = try #require(requests.lastIndex { $0.method == "PUT" && $0.key == "manifest.json" })
        let storedBefore = Set(requests[..<manifestPut].filter { $0.method == "PUT" }.map(\.key))
        for path in second.keys where !first.keys.contains(path) {
            #expect(storedBefore.contains(path), "\(path) stored before the manifest")
        }
        #expect(!requests.contains { $0.method == "DELETE" || $0.method == "POST" }, "nothing deleted in grace")

        // Past the grace period, the next upload deletes the stale variants, after the manifest.
        let thirdMark = server.logLength()
        let thirdWatcher = try ManifestWatcher(base: base, server: server)
        try upload(grace: 0)
        let thirdSeen = thirdWatcher.stop()
        #expect(thirdSeen.missing.isEmpty, "the live manifest listed a missing variant: \(thirdSeen.missing)")
        for path in stale { #expect(try server.fetch(base + "/" + path).status == 404, "deleted: \(path)") }
        for path in second.keys { #expect(try server.fetch(base + "/" + path).status == 200, "kept: \(path)") }
        let third = server.requests(since: thirdMark, under: "/\(bucket)/app/")
        let put = try #require(third.lastIndex { $0.method == "PUT" && $0.key == "manifest.json" })
        let deletions = third.indices.filter { third[$0].method == "DELETE" || third[$0].method == "POST" }
        #expect(!deletions.isEmpty && deletions.allSatisfy { $0 > put }, "deleted only after the manifest")
    }

    // MARK: - Helpers

    /// The variants a manifest lists: path to SHA-256, read with JSONSerialization.
    /// The Content-Type each variant file must be served with, by extension.
    static let contentTypes = ["jpg": "image/jpeg", "webp": "image/webp", "avif": "image/avif", "jxl": "image/jxl"]

    /// Every variant file a manifest lists (JPEG rungs and their format siblings), with its SHA-256.
    static func variants(inManifestAt path: String) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var variants: [String: String] = [:]
        for case let image as [String: Any] in (object["images"] as? [String: Any] ?? [:]).values {
            for case let variant as [String: Any] in (image["variants"] as? [String: Any] ?? [:]).values {
                let files =
                    [variant] + (variant["formats"] as? [String: Any] ?? [:]).values.compactMap { $0 as? [String: Any] }
                for file in files {
                    if let path = file["path"] as? String, let sha256 = file["sha256"] as? String {
                        variants[path] = sha256
                    }
                }
            }
        }
        return variants
    }

    /// SHA-256 by coreutils' sha256sum, an oracle independent of ladder.
    static func sha256(_ file: String) throws -> String {
        String(try run(tool("sha256sum")!, [file]).output.prefix(64))
    }

    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read both pipes while the process runs, so that neither fills up.
        nonisolated(unsafe) var errorData = Data()
        let reader = Thread { errorData = error.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }
}

/// moto's S3 server on 127.0.0.1, on a port it picks, logging every request to a file.
final class S3Server: @unchecked Sendable {
    let process = Process()
    let log: String
    let folder = TemporaryDirectory("ladder-s3")
    private(set) var endpoint = ""

    init() throws {
        log = folder.path("requests.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = URL(fileURLWithPath: UploadTests.tool("moto_server")!)
        process.arguments = ["-H", "127.0.0.1", "-p", "0"]
        process.environment = Self.baseEnvironment
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // Werkzeug names the port it got: " * Running on http://127.0.0.1:PORT".
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "Running on http://127.0.0.1:") {
                let port = text[range.upperBound...].prefix { $0.isNumber }
                if !port.isEmpty {
                    endpoint = "http://127.0.0.1:\(port)"
                    break
                }
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        guard !endpoint.isEmpty else {
            stop()
            throw S3ServerError(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
    }

    struct S3ServerError: Error, CustomStringConvertible {
        var log: String
        var description: String { "moto_server did not start: \(log)" }
    }

    /// Stops the server with SIGKILL: started from a test thread, it inherits a signal mask
    /// that blocks SIGTERM and SIGINT.
    func stop() {
        guard process.isRunning else { return }
        let kill = Process()
        kill.executableURL = URL(fileURLWithPath: UploadTests.tool("kill") ?? "/bin/kill")
        kill.arguments = ["-KILL", String(process.processIdentifier)]
        try? kill.run()
        kill.waitUntilExit()
        process.waitUntilExit()
    }

    /// This environment less settings that would send the tools elsewhere (a CA bundle for
    /// TLS, which the rclone SDK refuses on a plain-HTTP endpoint; proxies).
    static var baseEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "AWS_CA_BUNDLE", "AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "HTTP_PROXY",
            "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy",
        ] {
            environment[name] = nil
        }
        environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":" + UploadTests.toolsFolder
        environment["NO_PROXY"] = "127.0.0.1"
        return environment
    }

    /// What the upload scripts run with: credentials for moto, for both tools.
    func environment(grace: Int) -> [String: String] {
        var environment = Self.baseEnvironment
        environment["AWS_ACCESS_KEY_ID"] = "test"
        environment["AWS_SECRET_ACCESS_KEY"] = "test"
        environment["AWS_DEFAULT_REGION"] = "us-east-1"
        environment["AWS_ENDPOINT_URL"] = endpoint
        environment["RCLONE_CONFIG_MOTO_TYPE"] = "s3"
        environment["RCLONE_CONFIG_MOTO_PROVIDER"] = "Other"
        environment["RCLONE_CONFIG_MOTO_ENDPOINT"] = endpoint
        environment["RCLONE_CONFIG_MOTO_ACCESS_KEY_ID"] = "test"
        environment["RCLONE_CONFIG_MOTO_SECRET_ACCESS_KEY"] = "test"
        environment["RCLONE_CONFIG_MOTO_REGION"] = "us-east-1"
        environment["RCLONE_CONFIG_DIR"] = folder.path
        environment["LADDER_UPLOAD_GRACE"] = String(grace)
        return environment
    }

    /// A bucket anyone may read, as a CDN origin is.
    func makePublicBucket(_ name: String) throws {
        let aws = UploadTests.tool("aws")!
        let environment = self.environment(grace: 0)
        let made = try UploadTests.run(aws, ["s3", "mb", "s3://\(name)"], environment: environment)
        guard made.status == 0 else { throw S3ServerError(log: made.error) }
        let policy = """
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*",
             "Action": "s3:GetObject", "Resource": "arn:aws:s3:::\(name)/*"},
             {"Effect": "Allow", "Principal": "*", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::\(name)"}]}
            """
        let set = try UploadTests.run(
            aws, ["s3api", "put-bucket-policy", "--bucket", name, "--policy", policy], environment: environment)
        guard set.status == 0 else { throw S3ServerError(log: set.error) }
    }

    /// GETs `url` anonymously with curl: the status, the headers and the body's file.
    func fetch(_ url: String) throws -> (status: Int, headers: String, file: String) {
        let file = folder.path("fetched-\(UUID().uuidString)")
        let headers = file + ".headers"
        let result = try UploadTests.run(
            UploadTests.tool("curl")!, ["-s", "-o", file, "-D", headers, "-w", "%{http_code}", url],
            environment: Self.baseEnvironment)
        return (Int(result.output) ?? 0, (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "", file)
    }

    /// The keys under `prefix` (less the prefix) at this moment, by one anonymous ListObjectsV2.
    func list(bucket: String, prefix: String) throws -> Set<String> {
        let listing = try fetch("\(endpoint)/\(bucket)?list-type=2&prefix=\(prefix)")
        guard listing.status == 200 else { throw S3ServerError(log: "listing \(bucket): HTTP \(listing.status)") }
        let xml = (try? String(contentsOfFile: listing.file, encoding: .utf8)) ?? ""
        return Set(
            xml.components(separatedBy: "<Key>").dropFirst().compactMap { part in
                part.components(separatedBy: "</Key>").first.map { String($0.dropFirst(prefix.count)) }
            })
    }

    /// The request log's length now, to read what comes after.
    func logLength() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: log)[.size]) as? Int) ?? 0
    }

    /// The requests logged after `offset` for keys under `prefix` ("/bucket/app/"), in the order
    /// the server handled them: method and key below the prefix.
    func requests(since offset: Int, under prefix: String) -> [(method: String, key: String)] {
        guard let data = FileManager.default.contents(atPath: log), data.count >= offset else { return [] }
        let text = String(decoding: data.dropFirst(offset), as: UTF8.self)
        // 127.0.0.1 - - [30/Nov/2026 11:49:20] "PUT /site/app/manifest.json HTTP/1.1" 200 -
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\"")
            guard parts.count >= 2 else { return nil }
            let request = parts[1].split(separator: " ")
            guard request.count >= 2 else { return nil }
            let target = String(request[1])
            // DeleteObjects is a POST to the bucket ("/site?delete"): it counts as a deletion.
            let bucket = "/" + (prefix.split(separator: "/").first.map(String.init) ?? "")
            guard target.hasPrefix(prefix) || (request[0] == "POST" && target.hasPrefix(bucket + "?delete"))
            else { return nil }
            let key = String(target.dropFirst(prefix.count).prefix { $0 != "?" })
            return (String(request[0]), key.removingPercentEncoding ?? key)
        }
    }
}

/// Reads the live manifest over HTTP again and again while an upload runs, and checks that
/// every variant it lists is there at that moment (a bucket listing made after the manifest was
/// read: during an upload, variants are only added until the manifest is in place).
final class ManifestWatcher: Sendable {
    private struct State {
        var running = true
        var finished = false
        var polls = 0
        var missing: Set<String> = []
    }

    private let state = NSLock.Protected(State())

    init(base: String, server: S3Server) throws {
        let state = self.state
        Thread.detachNewThread {
            while state.read({ $0.running }) {
                guard let manifest = try? server.fetch(base + "/manifest.json"), manifest.status == 200,
                    let listed = try? UploadTests.variants(inManifestAt: manifest.file),
                    let present = try? server.list(bucket: "site", prefix: "app/")
                else { continue }
                let absent = Set(listed.keys).subtracting(present)
                state.write {
                    $0.polls += 1
                    $0.missing.formUnion(absent)
                }
            }
            state.write { $0.finished = true }
        }
    }

    /// Stops watching; how many times the manifest was read and checked, and what was missing.
    func stop() -> (polls: Int, missing: Set<String>) {
        state.write { $0.running = false }
        while !state.read({ $0.finished }) { Thread.sleep(forTimeInterval: 0.01) }
        return state.read { ($0.polls, $0.missing) }
    }
}

extension NSLock {
    /// A value guarded by a lock.
    final class Protected<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value

        init(_ value: Value) { self.value = value }

        func read<T>(_ body: (Value) -> T) -> T { lock.withLock { body(value) } }
        func write(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
    }
}
