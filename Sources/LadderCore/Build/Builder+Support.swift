import Foundation
import LadderImaging
import LadderManifest
import Synchronization

/// What the phases of a build share: reading sources, the source list's checksum, locks,
/// warnings about names.
extension Builder {
    /// Sources whose extension names another format than their content: ladder goes by the
    /// content, but other tools (and web servers choosing a content type) may not.
    static func extensionMismatches(in manifest: Manifest) -> [SourceWarning] {
        var warnings: [SourceWarning] = []
        for entry in manifest.images.values {
            guard let format = entry.format.flatMap(ImageFormat.init(rawValue:)) else { continue }
            warnings += entry.sources.compactMap { extensionMismatch(path: $0, format: format) }
        }
        return warnings
    }

    /// A warning when the extension of `path` names another format than `format`, its content's.
    static func extensionMismatch(path: String, format: ImageFormat) -> SourceWarning? {
        let name = FilePath.name(path)
        guard let dot = name.lastIndex(of: "."),
            let named = ImageFormat.named(byExtension: String(name[name.index(after: dot)...])), named != format
        else { return nil }
        return SourceWarning(
            path: path,
            message:
                "named like \(named.rawValue.uppercased()) but the content is \(format.rawValue.uppercased()); ladder goes by the content"
        )
    }

    /// SHA1 of source paths (sorted), each followed by a line feed: what every shard of a build
    /// must agree on.
    static func sourceListSHA1(_ sortedPaths: [String]) -> String {
        var checksum = Checksum(.sha1)
        for path in sortedPaths {
            var line = Array(path.utf8)
            line.append(0x0A)
            line.withUnsafeBytes { checksum.update($0) }
        }
        return checksum.hexDigest()
    }

    /// Takes a lock with `take(wait)`: at once when it is free, else, when waiting is allowed,
    /// after announcing the wait; otherwise the build stops as locked.
    @discardableResult
    static func acquire<Lock>(
        waitAllowed: Bool, folder: String, announce: (String) -> Void, _ take: (Bool) throws -> Lock?
    ) throws -> Lock {
        if let lock = try take(false) { return lock }
        guard waitAllowed else { throw BuildError.locked(folder) }
        announce(folder)
        guard let lock = try take(true) else { throw BuildError.locked(folder) }
        return lock
    }

    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000_000)
    }
}

/// The output folder's subfolders, opened once each per build (a no-op build of 10,000 sources
/// checks 30,000 files in them).
final class OutputFolders: Sendable {
    let output: Directory
    private let opened = Mutex<[String: Directory]>([:])

    init(_ output: Directory) { self.output = output }

    /// The subfolder `name` (never a symbolic link), created when asked.
    func folder(_ name: String, create: Bool) throws(FileSystemError) -> Directory {
        if let folder = opened.withLock({ $0[name] }) { return folder }
        let folder = try output.subdirectory(name, create: create)
        opened.withLock { $0[name] = folder }
        return folder
    }
}
