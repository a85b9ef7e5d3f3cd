import Foundation
import LadderCore
import Testing

/// A folder's listing gives each name's kind where the file system tells it, which the orphan
/// walk trusts instead of a `stat` per name: it must agree with `lstat` (the oracle).
@Suite("Folder listing")
struct DirectoryListingTests {
    @Test("each listed name's kind is lstat's, and names that are not UTF-8 are counted")
    func kindsAreLstats() throws {
        let folder = TemporaryDirectory()
        try folder.write("a file", to: "listed/file.txt")
        try folder.write("nested", to: "listed/folder/inner.txt")
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("listed/link"), withDestinationPath: folder.path("listed/file.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("listed/dangling"), withDestinationPath: "nowhere")
        #expect(mkfifo(folder.path("listed/fifo"), 0o600) == 0)
        #expect(folder.createLatin1File(in: "listed"))

        let listing = try Directory.open(folder.path("listed")).kindedListing()
        #expect(listing.undecodable == 1)
        #expect(Set(listing.entries.map(\.name)) == ["file.txt", "folder", "link", "dangling", "fifo"])
        for (name, kind) in listing.entries {
            var info = stat()
            #expect(lstat(folder.path("listed/" + name), &info) == 0)
            let oracle: FileStatus.Kind =
                switch info.st_mode & S_IFMT {
                case S_IFREG: .regular
                case S_IFDIR: .directory
                case S_IFLNK: .symbolicLink
                default: .other
                }
            // nil only where the file system does not tell; ext4 and tmpfs always do.
            #expect((kind ?? oracle) == oracle, "\(name)")
        }
    }
}
