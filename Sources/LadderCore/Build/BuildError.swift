/// Why a build stopped before writing its manifest. The previous manifest, and every file it
/// names, is left as it was.
public enum BuildError: Error, Sendable, CustomStringConvertible {
    /// Reading the output, or writing, failed (disk full, permissions, I/O error).
    case io(FileSystemError)
    /// Another build holds the output folder and waiting was not allowed.
    case locked(String)

    public var description: String {
        switch self {
        case .io(let error):
            var text = error.description
            if error.isOutOfSpace { text += "; free some space and run again (the previous manifest is intact)" }
            return text
        case .locked(let folder):
            return
                "another ladder build is writing to '\(folder)'; run again when it is done, or leave out --no-wait to wait for it"
        }
    }
}
