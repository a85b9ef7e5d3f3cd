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

/// A file read a piece at a time hands over exactly its bytes: every line whole, where it
/// starts, and any range, whatever the buffer boundaries.
@Suite("Files read a piece at a time")
struct OpenFileTests {
    /// The reader's buffer (`OpenFile.chunkBytes`).
    static let buffer = 1 << 20

    /// Lines of many lengths, one longer than two buffers, one ending right at a buffer's end.
    static let text: [UInt8] = {
        var bytes: [UInt8] = []
        var length = 0
        while bytes.count < buffer * 3 {
            length = (length * 31 + 7) % 5_000
            bytes += [UInt8](repeating: UInt8(ascii: "a") + UInt8(length % 26), count: length) + [0x0A]
            if bytes.count > buffer - 5_000 && bytes.count < buffer {
                bytes += [UInt8](repeating: UInt8(ascii: "x"), count: buffer - 1 - bytes.count) + [0x0A]
            }
            if bytes.count > buffer * 2 && bytes.count < buffer * 2 + 10_000 {
                bytes += [UInt8](repeating: UInt8(ascii: "z"), count: buffer * 2 + 12_345) + [0x0A]
            }
        }
        return bytes
    }()

    static func lines(of bytes: [UInt8]) throws -> [(line: [UInt8], offset: Int)] {
        let folder = TemporaryDirectory()
        try folder.write(bytes, to: "file")
        var lines: [(line: [UInt8], offset: Int)] = []
        try Directory.open(folder.path).openFile("file").forEachLine { line, offset in
            lines.append((Array(line), offset))
            return true
        }
        return lines
    }

    @Test("every line, with its line feed and offset, as splitting the bytes gives them", arguments: [true, false])
    func everyLine(_ endsWithLineFeed: Bool) throws {
        let bytes = endsWithLineFeed ? Self.text : Self.text + Array("no line feed".utf8)
        #expect(bytes.count > Self.buffer * 3)
        let lines = try Self.lines(of: bytes)
        // The oracle: Foundation's split, each line given its line feed back but the last.
        var expected = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) + [0x0A] }
        if endsWithLineFeed { expected.removeLast() } else { expected[expected.count - 1].removeLast() }
        #expect(lines.count == expected.count)
        #expect(lines.map(\.line) == expected)
        #expect(lines.map(\.offset) == expected.reduce(into: [0]) { $0.append($0.last! + $1.count) }.dropLast())
        #expect(lines.contains { $0.line.count > Self.buffer * 2 })
        #expect(lines.contains { ($0.offset + $0.line.count) == Self.buffer })
    }

    @Test("the line reader stops where it is told")
    func stops() throws {
        let folder = TemporaryDirectory()
        try folder.write(Self.text, to: "file")
        var seen = 0
        try Directory.open(folder.path).openFile("file").forEachLine { _, _ in
            seen += 1
            return seen < 3
        }
        #expect(seen == 3)
    }

    @Test("a range across buffers is its bytes; a range past the end is an error")
    func ranges() throws {
        let folder = TemporaryDirectory()
        try folder.write(Self.text, to: "file")
        let file = try Directory.open(folder.path).openFile("file")
        for range in [0..<0, 5..<6, 17..<(Self.buffer * 2 + 99), (Self.text.count - 10)..<Self.text.count] {
            #expect(try file.bytes(range) == Array(Self.text[range]))
        }
        #expect(throws: FileSystemError.self) { try file.bytes((Self.text.count - 10)..<(Self.text.count + 1)) }
    }

    @Test("a file cut shorter after it was opened is an error, not fewer bytes")
    func shortened() throws {
        let folder = TemporaryDirectory()
        try folder.write(Self.text, to: "file")
        let file = try Directory.open(folder.path).openFile("file")
        #expect(truncate(folder.path("file"), off_t(Self.buffer)) == 0)
        #expect(throws: FileSystemError.self) { try file.bytes(0..<(Self.buffer + 1)) }
    }

    @Test("a symbolic link or a folder is refused")
    func refused() throws {
        let folder = TemporaryDirectory()
        try folder.write(Self.text, to: "file")
        #expect(symlink(folder.path("file"), folder.path("link")) == 0)
        #expect(mkdir(folder.path("folder"), 0o755) == 0)
        let directory = try Directory.open(folder.path)
        #expect(throws: FileSystemError.self) { try directory.openFile("link") }
        #expect(throws: FileSystemError.self) { try directory.openFile("folder") }
    }
}
