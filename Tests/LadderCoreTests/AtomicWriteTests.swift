import Foundation
import LadderCore
import Testing

/// Files written together (the manifest's index) land whole or not at all, as a single file
/// written atomically does.
@Suite("Atomic writes")
struct AtomicWriteTests {
    /// Folder `files/` holding `count` files `NN.json` with `old-NN`.
    static func folderOfFiles(_ count: Int) throws -> TemporaryDirectory {
        let folder = TemporaryDirectory()
        for index in 0..<count {
            try folder.write("old-\(index)", to: "files/\(String(format: "%02x", index)).json")
        }
        return folder
    }

    @Test("a batch of files replaces every one of them, leaving no temporary file")
    func batchLandsWhole() throws {
        let folder = try Self.folderOfFiles(256)
        let directory = try Directory.open(folder.path("files"))
        let batch = (0..<300).map { index in
            (name: String(format: "%02x", index) + ".json", bytes: Array("new-\(index)".utf8))
        }
        try directory.writeAtomically(batch)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("files"))
        #expect(names.count == 300)
        #expect(!names.contains { $0.hasPrefix(Directory.temporaryPrefix) })
        for (name, bytes) in batch {
            #expect(try folder.read("files/\(name)") == bytes, "\(name)")
        }
    }

    @Test("when one file of a batch cannot be written, every file keeps its old content")
    func batchFailsWhole() throws {
        let folder = try Self.folderOfFiles(40)
        let directory = try Directory.open(folder.path("files"))
        // A name the file system takes, but too long once the temporary file's prefix is added.
        let tooLong = String(repeating: "n", count: 240) + ".json"
        var batch = (0..<40).map { index in
            (name: String(format: "%02x", index) + ".json", bytes: Array("new-\(index)".utf8))
        }
        batch.insert((tooLong, Array("new".utf8)), at: 20)
        let error = #expect(throws: FileSystemError.self) { try directory.writeAtomically(batch) }
        #expect(error?.path.hasSuffix(tooLong) == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("files"))
        #expect(names.count == 40)
        for index in 0..<40 {
            let name = String(format: "%02x", index) + ".json"
            #expect(try folder.read("files/\(name)") == Array("old-\(index)".utf8), "\(name)")
        }
    }
}
