import Synchronization

/// The output folder's subfolders, each opened once rather than once per file: a no-op build of
/// 10,000 sources checks 30,000 files in them, and verify reads an image's variants, and most
/// images one after another, from one. Folders are opened without following links, as
/// `Directory.subdirectory` does. At most `capacity` stay open, so that a layout with many
/// folders cannot use up file descriptors.
final class OutputFolders: Sendable {
    static let capacity = 512

    let output: Directory
    private let opened = Mutex<[String: Directory]>([:])

    init(_ output: Directory) { self.output = output }

    /// The subfolder at `relative` (a `/`-separated path inside the output folder; "" or "."
    /// for the output folder itself), created when asked.
    func folder(_ relative: String, create: Bool) throws(FileSystemError) -> Directory {
        if relative.isEmpty || relative == "." { return output }
        if let folder = opened.withLock({ $0[relative] }) { return folder }
        let folder = try output.subdirectory(relative, create: create)
        opened.withLock { folders in
            if folders.count >= Self.capacity { folders.removeAll() }
            folders[relative] = folder
        }
        return folder
    }

    /// The existing folder that holds the file at `relative`, and the file's name in it.
    func folder(of relative: String) throws(FileSystemError) -> (folder: Directory, name: String) {
        (try folder(FilePath.parent(relative), create: false), FilePath.name(relative))
    }
}
