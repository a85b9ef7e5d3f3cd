/// A failure inside the imaging libraries: what was being done, to which file, and why.
package struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What ladder asked the library to do, for example "decode" or "encode JPEG".
    package var operation: String
    /// The file concerned, when there is one.
    package var path: String?
    /// The library's own explanation.
    package var reason: String

    package init(operation: String, path: String?, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    package var description: String {
        if let path { return "cannot \(operation) '\(path)': \(reason)" }
        return "cannot \(operation): \(reason)"
    }
}
