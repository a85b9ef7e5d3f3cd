@preconcurrency import Foundation

/// A failed file-system call: what was being done, to which path, and the system's reason.
package struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What ladder was doing: "read", "write", "create folder", "rename"...
    package var operation: String
    package var path: String
    /// The errno value, or 0 when the failure is ladder's own finding.
    package var code: Int32
    package var reason: String

    package init(operation: String, path: String, code: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.reason = reason ?? String(cString: strerror(code))
    }

    /// The error for the current errno.
    static func current(_ operation: String, _ path: @autoclosure () -> String) -> FileSystemError {
        let code = errno
        return FileSystemError(operation: operation, path: path(), code: code)
    }

    package var description: String { "cannot \(operation) '\(path)': \(reason)" }

    /// True when the disk is full or over quota.
    package var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT || code == EFBIG }
}
