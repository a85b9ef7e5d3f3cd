/// Why a build stopped before writing its manifest. The previous manifest, and every file it
/// names, is left as it was.
package enum BuildError: Error, Sendable, CustomStringConvertible {
    /// Reading the output, or writing, failed (disk full, permissions, I/O error).
    case io(FileSystemError)
    /// Another build holds the output folder and waiting was not allowed.
    case locked(String)

    /// Runs `body`, turning whatever it throws into a `BuildError` (`operation` on `path` names
    /// errors that are neither).
    static func mapping<T>(operation: String, path: String, _ body: () throws -> T) throws(BuildError) -> T {
        do {
            return try body()
        } catch let error as BuildError {
            throw error
        } catch let error as FileSystemError {
            throw .io(error)
        } catch {
            throw .io(FileSystemError(operation: operation, path: path, code: 0, reason: "\(error)"))
        }
    }

    package var description: String {
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
