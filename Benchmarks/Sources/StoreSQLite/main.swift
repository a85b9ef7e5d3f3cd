// The build state of a built project kept in SQLite (the system library), timed the way a
// no-op build would use it. scripts/bench-store builds and runs it (`swift build --package-path Benchmarks`); see docs/ARCHITECTURE.md.
//
//     store-sqlite import PROJECT DATABASE   # copies .ladder/stat-cache and the manifest's
//                                           # index into DATABASE, in one transaction, timed
//     store-sqlite load DATABASE MANIFEST ROUNDS
//                                            # reads all of it back into memory, ROUNDS times,
//                                            # and checks that MANIFEST (manifest.json) still
//                                            # has the SHA1 it was imported with, as the
//                                            # hand-made store checks its snapshot
//
// Prints one JSON object: the row counts and the wall and CPU seconds of each round.
import CSQLite
import Foundation
import LadderImaging

/// The SQLITE_TRANSIENT destructor: SQLite copies bound text before the call returns.
nonisolated(unsafe) let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

struct Failure: Error, CustomStringConvertible {
    var description: String
}

final class Database {
    let handle: OpaquePointer

    init(path: String) throws {
        var opened: OpaquePointer?
        guard sqlite3_open(path, &opened) == SQLITE_OK, let opened else {
            throw Failure(description: "cannot open \(path)")
        }
        handle = opened
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return statement
    }

    /// Runs `statement` once with `values` bound (Int64, String or [UInt8]) and resets it.
    func insert(_ statement: OpaquePointer, _ values: [Any?]) throws {
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case let number as Int64: sqlite3_bind_int64(statement, position, number)
            case let number as Int: sqlite3_bind_int64(statement, position, Int64(number))
            case let text as String: sqlite3_bind_text(statement, position, text, -1, transient)
            case let bytes as [UInt8]:
                _ = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), transient)
                }
            default: sqlite3_bind_null(statement, position)
            }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        sqlite3_reset(statement)
    }
}

let schema = """
    PRAGMA journal_mode = WAL;
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE IF NOT EXISTS stat (path BLOB PRIMARY KEY, sha1 TEXT, device INTEGER, inode INTEGER,
        size INTEGER, modified INTEGER, changed INTEGER) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS image (sha1 TEXT PRIMARY KEY, width INTEGER, height INTEGER, format TEXT,
        bytes INTEGER, orientation INTEGER, captured TEXT, gpsRemoved INTEGER, placeholder TEXT,
        averageColor TEXT, hasAlpha INTEGER) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS source (path TEXT PRIMARY KEY, sha1 TEXT) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS variant (sha1 TEXT, name TEXT, path TEXT, width INTEGER, height INTEGER,
        bytes INTEGER, sha256 TEXT, progressive INTEGER, scans INTEGER, recipe TEXT, scanEnds TEXT,
        script TEXT, PRIMARY KEY (sha1, name)) WITHOUT ROWID;
    """

/// CPU time of this process so far.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Wall seconds that `body` took.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Copies the project's stat cache and manifest into `databasePath`, in one transaction.
func importProject(_ project: String, into databasePath: String) throws -> [String: Any] {
    try? FileManager.default.removeItem(atPath: databasePath)
    let database = try Database(path: databasePath)
    try database.execute(schema)
    let cache = try [UInt8](Data(contentsOf: URL(fileURLWithPath: project + "/.ladder/stat-cache")))
    let manifestData = try Data(contentsOf: URL(fileURLWithPath: project + "/build/variants/manifest.json"))
    guard let manifest = try JSONSerialization.jsonObject(with: manifestData) as? [String: Any],
        let images = manifest["images"] as? [String: [String: Any]]
    else { throw Failure(description: "unreadable manifest") }
    var statRows = 0
    var variantRows = 0
    let elapsed = try seconds {
        try database.execute("BEGIN")
        let stat = try database.prepare("INSERT OR REPLACE INTO stat VALUES (?, ?, ?, ?, ?, ?, ?)")
        for line in cache.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 6, omittingEmptySubsequences: false)
            guard fields.count == 7 else { continue }
            func number(_ index: Int) -> Int64 { Int64(String(decoding: fields[index], as: UTF8.self)) ?? 0 }
            try database.insert(
                stat,
                [
                    [UInt8](fields[6]), String(decoding: fields[0], as: UTF8.self), number(1), number(2), number(3),
                    number(4), number(5),
                ])
            statRows += 1
        }
        sqlite3_finalize(stat)
        let image = try database.prepare("INSERT INTO image VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let source = try database.prepare("INSERT INTO source VALUES (?, ?)")
        let variant = try database.prepare("INSERT INTO variant VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        func flag(_ value: Any?) -> Int? { (value as? Bool).map { $0 ? 1 : 0 } }
        for (sha1, entry) in images {
            try database.insert(
                image,
                [
                    sha1, entry["width"] as? Int, entry["height"] as? Int, entry["format"] as? String,
                    entry["bytes"] as? Int, entry["orientation"] as? Int, entry["captured"] as? String,
                    flag(entry["gpsRemoved"]), entry["placeholder"] as? String, entry["averageColor"] as? String,
                    flag(entry["hasAlpha"]),
                ])
            for path in entry["sources"] as? [String] ?? [] { try database.insert(source, [path, sha1]) }
            for (name, value) in entry["variants"] as? [String: [String: Any]] ?? [:] {
                let ends = (value["scanEnds"] as? [Int])?.map(String.init).joined(separator: ",")
                try database.insert(
                    variant,
                    [
                        sha1, name, value["path"] as? String, value["width"] as? Int, value["height"] as? Int,
                        value["bytes"] as? Int, value["sha256"] as? String, flag(value["progressive"]),
                        value["scans"] as? Int, value["recipe"] as? String, ends, value["script"] as? String,
                    ])
                variantRows += 1
            }
        }
        for statement in [image, source, variant] { sqlite3_finalize(statement) }
        try database.execute("COMMIT")
    }
    let insertMeta = try database.prepare("INSERT OR REPLACE INTO meta VALUES ('manifestSHA1', ?)")
    try database.insert(insertMeta, [sha1([UInt8](manifestData))])
    sqlite3_finalize(insertMeta)
    return ["statRows": statRows, "images": images.count, "variantRows": variantRows, "writeSeconds": elapsed]
}

/// What a no-op build needs in memory: the stat cache by path bytes, and every image entry with
/// its sources and variants (the previous manifest, which a rebuild reuses).
struct StatRow {
    var sha1: String
    var device: Int64, inode: Int64, size: Int64, modified: Int64, changed: Int64
}

struct VariantRow {
    var name: String, path: String, sha256: String, recipe: String, scanEnds: String?, script: String?
    var width: Int64, height: Int64, bytes: Int64, scans: Int64, progressive: Bool
}

struct ImageRow {
    var width: Int64, height: Int64, bytes: Int64?, orientation: Int64?
    var format: String?, captured: String?, placeholder: String?, averageColor: String?
    var gpsRemoved: Bool?, hasAlpha: Bool?
    var sources: [String] = []
    var variants: [String: VariantRow] = [:]
}

func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
    guard let pointer = sqlite3_column_text(statement, column) else { return nil }
    return String(cString: pointer)
}

func optionalInt(_ statement: OpaquePointer, _ column: Int32) -> Int64? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
}

/// The SHA1 of `bytes` in hexadecimal, as ladder computes it (GLib's checksum).
func sha1(_ bytes: [UInt8]) -> String {
    Checksum.hex(.sha1, of: bytes)
}

func load(_ databasePath: String, manifest manifestPath: String) throws -> (stat: Int, images: Int) {
    let database = try Database(path: databasePath)
    let manifestSHA1 = sha1(try [UInt8](Data(contentsOf: URL(fileURLWithPath: manifestPath))))
    let metaQuery = try database.prepare("SELECT value FROM meta WHERE key = 'manifestSHA1'")
    let recorded = sqlite3_step(metaQuery) == SQLITE_ROW ? text(metaQuery, 0) : nil
    sqlite3_finalize(metaQuery)
    guard recorded == manifestSHA1 else { throw Failure(description: "the manifest changed since the import") }
    var stat: [[UInt8]: StatRow] = [:]
    var images: [String: ImageRow] = [:]
    try database.execute("BEGIN")
    let statQuery = try database.prepare("SELECT path, sha1, device, inode, size, modified, changed FROM stat")
    while sqlite3_step(statQuery) == SQLITE_ROW {
        let count = Int(sqlite3_column_bytes(statQuery, 0))
        let path = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(statQuery, 0), count: count))
        stat[path] = StatRow(
            sha1: text(statQuery, 1) ?? "", device: sqlite3_column_int64(statQuery, 2),
            inode: sqlite3_column_int64(statQuery, 3), size: sqlite3_column_int64(statQuery, 4),
            modified: sqlite3_column_int64(statQuery, 5), changed: sqlite3_column_int64(statQuery, 6))
    }
    sqlite3_finalize(statQuery)
    let imageQuery = try database.prepare("SELECT * FROM image")
    while sqlite3_step(imageQuery) == SQLITE_ROW {
        images[text(imageQuery, 0) ?? ""] = ImageRow(
            width: sqlite3_column_int64(imageQuery, 1), height: sqlite3_column_int64(imageQuery, 2),
            bytes: optionalInt(imageQuery, 4), orientation: optionalInt(imageQuery, 5), format: text(imageQuery, 3),
            captured: text(imageQuery, 6), placeholder: text(imageQuery, 8), averageColor: text(imageQuery, 9),
            gpsRemoved: optionalInt(imageQuery, 7).map { $0 != 0 },
            hasAlpha: optionalInt(imageQuery, 10).map { $0 != 0 })
    }
    sqlite3_finalize(imageQuery)
    let sourceQuery = try database.prepare("SELECT path, sha1 FROM source")
    while sqlite3_step(sourceQuery) == SQLITE_ROW {
        images[text(sourceQuery, 1) ?? ""]?.sources.append(text(sourceQuery, 0) ?? "")
    }
    sqlite3_finalize(sourceQuery)
    let variantQuery = try database.prepare("SELECT * FROM variant")
    while sqlite3_step(variantQuery) == SQLITE_ROW {
        let name = text(variantQuery, 1) ?? ""
        images[text(variantQuery, 0) ?? ""]?.variants[name] = VariantRow(
            name: name, path: text(variantQuery, 2) ?? "", sha256: text(variantQuery, 6) ?? "",
            recipe: text(variantQuery, 9) ?? "", scanEnds: text(variantQuery, 10), script: text(variantQuery, 11),
            width: sqlite3_column_int64(variantQuery, 3), height: sqlite3_column_int64(variantQuery, 4),
            bytes: sqlite3_column_int64(variantQuery, 5), scans: sqlite3_column_int64(variantQuery, 8),
            progressive: sqlite3_column_int64(variantQuery, 7) != 0)
    }
    sqlite3_finalize(variantQuery)
    try database.execute("COMMIT")
    return (stat.count, images.count)
}

func printJSON(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
    case ("import", 4):
        printJSON(try importProject(arguments[2], into: arguments[3]))
    case ("load", 5):
        var rounds: [Double] = []
        var cpu: [Double] = []
        var counts = (stat: 0, images: 0)
        for _ in 0..<(Int(arguments[4]) ?? 1) {
            let cpuStarted = processCPUSeconds()
            rounds.append(try seconds { counts = try load(arguments[2], manifest: arguments[3]) })
            cpu.append(processCPUSeconds() - cpuStarted)
        }
        printJSON(["statRows": counts.stat, "images": counts.images, "loadSeconds": rounds, "cpuSeconds": cpu])
    default:
        FileHandle.standardError.write(
            Data("usage: store-sqlite import PROJECT DATABASE | load DATABASE MANIFEST ROUNDS\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("store-sqlite: \(error)\n".utf8))
    exit(1)
}
