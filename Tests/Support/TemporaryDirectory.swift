import Foundation

/// A fresh folder under the system's temporary folder, deleted when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `path` never changes.
    let path: String

    init(_ label: String = "ladder-test") {
        let base = FileManager.default.temporaryDirectory.path
        let name = "\(label)-\(UUID().uuidString.prefix(8))"
        path = (base as NSString).appendingPathComponent(name)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The absolute path of `relative` inside this folder.
    func url(_ relative: String) -> URL { URL(fileURLWithPath: path).appendingPathComponent(relative) }

    func path(_ relative: String) -> String { url(relative).path }

    /// Writes `bytes` to `relative`, creating folders as needed.
    func write(_ bytes: [UInt8], to relative: String) throws {
        let url = url(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func write(_ text: String, to relative: String) throws {
        try write(Array(text.utf8), to: relative)
    }

    /// Creates an empty file named "caf" and the Latin-1 byte of "é" (not valid UTF-8) in the
    /// existing folder `folder`: a name no String can hold, so it is made with open(2).
    func createLatin1File(in folder: String) -> Bool {
        let name = Array(path(folder).utf8) + Array("/caf".utf8) + [0xE9, 0]
        let descriptor = name.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    func read(_ relative: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: url(relative)))
    }

    func exists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: path(relative))
    }

    /// Every regular file below `relative`, as paths relative to it, sorted.
    func files(under relative: String = "") -> [String] {
        let root = path(relative)
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var result: [String] = []
        while let item = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: (root as NSString).appendingPathComponent(item), isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                result.append(item)
            }
        }
        return result.sorted()
    }

    /// Modification times of every file below `relative`, to tell whether a run rewrote any.
    func modificationTimes(under relative: String = "") -> [String: Date] {
        var times: [String: Date] = [:]
        for file in files(under: relative) {
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: path(relative.isEmpty ? file : relative + "/" + file))
            times[file] = attributes?[.modificationDate] as? Date
        }
        return times
    }

    /// Copies every file below `relative` in `other` to the same place in this folder (files
    /// already here are overwritten), as gathering a CI job's artifacts does.
    func copyFiles(from other: TemporaryDirectory, under relative: String = "") throws {
        for file in other.files(under: relative) {
            let name = relative.isEmpty ? file : relative + "/" + file
            try write(other.read(name), to: name)
        }
    }

    /// The bytes of every file below `relative`, by path relative to it.
    func contents(under relative: String = "") throws -> [String: [UInt8]] {
        var contents: [String: [UInt8]] = [:]
        for file in files(under: relative) {
            contents[file] = try read(relative.isEmpty ? file : relative + "/" + file)
        }
        return contents
    }
}
