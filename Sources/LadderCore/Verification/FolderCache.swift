import Synchronization

/// The output's subfolders that verify reads variant files from, each opened once rather than
/// once per file (an image's variants, and most images checked one after another, share one).
/// At most `capacity` stay open, so that a layout with many folders cannot use up descriptors.
final class FolderCache: Sendable {
    static let capacity = 64

    let output: Directory
    private let open: Mutex<[String: Directory]> = Mutex([:])

    init(_ output: Directory) {
        self.output = output
    }

    /// The folder that holds the file at `relative` (a path inside the output folder, opened
    /// without following links as `Directory.subdirectory` does), and the file's name in it.
    func folder(of relative: String) throws(FileSystemError) -> (folder: Directory, name: String) {
        let (parent, name) = (FilePath.parent(relative), FilePath.name(relative))
        if let folder = open.withLock({ $0[parent] }) { return (folder, name) }
        let folder = try output.subdirectory(parent, create: false)
        open.withLock { folders in
            if folders.count >= Self.capacity { folders.removeAll() }
            folders[parent] = folder
        }
        return (folder, name)
    }
}
