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

/// A file written a piece at a time replaces the one at its name only when its bytes differ.
@Suite("Streamed files")
struct StreamedFileTests {
    /// The file's buffer (`StreamedFile.bufferBytes`).
    static let buffer = 1 << 20
    /// Two and a half buffers' worth, so that the comparison spans several reads.
    static let bytes = (0..<(buffer * 5 / 2)).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }

    /// Writes `new` in pieces of odd sizes over a file holding `old` (none when nil), asking
    /// `matchesPresent()` before the commit when `askingFirst`; returns whether it was replaced,
    /// whether it is the same inode, what the folder then holds, whether the file holds `new`,
    /// and what `matchesPresent()` said (nil: not asked).
    static func write(
        _ new: [UInt8], over old: [UInt8]?, askingFirst: Bool = false
    ) throws -> (replaced: Bool, sameInode: Bool, names: [String], holdsNew: Bool, matched: Bool?) {
        let folder = TemporaryDirectory()
        let path = folder.path("manifest.json")
        if let old { try folder.write(old, to: "manifest.json") }
        func inode() throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        }
        let before = old == nil ? nil : try inode()
        let file = try Directory.open(folder.path).streamedFile("manifest.json")
        var start = 0
        while start < new.count {
            let end = min(new.count, start + 300_007)
            try file.append(new[start..<end])
            start = end
        }
        let matched = askingFirst ? try file.matchesPresent() : nil
        let replaced = try file.commit()
        let after = try inode()
        return (
            replaced, before == after, try FileManager.default.contentsOfDirectory(atPath: folder.path),
            try folder.read("manifest.json") == new, matched
        )
    }

    @Test(
        "the same bytes leave the file in place, and no temporary file (matchesPresent says so first)",
        arguments: [false, true])
    func sameBytes(_ askingFirst: Bool) throws {
        let result = try Self.write(Self.bytes, over: Self.bytes, askingFirst: askingFirst)
        #expect(!result.replaced && result.sameInode)
        #expect(result.names == ["manifest.json"])
        #expect(result.holdsNew)
        #expect(result.matched == (askingFirst ? true : nil))
    }

    @Test(
        "any difference replaces the file with the new bytes (matchesPresent says so first)",
        arguments: [
            "longer", "shorter", "last byte", "second buffer", "first byte", "no file", "empty file",
        ], [false, true])
    func differentBytes(_ change: String, _ askingFirst: Bool) throws {
        var old: [UInt8]? = Self.bytes
        switch change {
        case "longer": old = Array(Self.bytes.dropLast(1))
        case "shorter": old = Self.bytes + [0]
        case "last byte": old![old!.count - 1] ^= 1
        case "second buffer": old![Self.buffer + 17] ^= 0x80
        case "first byte": old![0] ^= 1
        case "no file": old = nil
        default: old = []
        }
        let result = try Self.write(Self.bytes, over: old, askingFirst: askingFirst)
        #expect(result.replaced && (old == nil || !result.sameInode))
        #expect(result.names == ["manifest.json"])
        #expect(result.holdsNew)
        #expect(result.matched == (askingFirst ? false : nil))
    }

    @Test("an empty file over an empty file is left in place")
    func emptyOverEmpty() throws {
        let result = try Self.write([], over: [])
        #expect(!result.replaced && result.sameInode && result.holdsNew)
    }
}
