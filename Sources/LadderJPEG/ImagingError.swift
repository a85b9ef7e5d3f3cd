/// A failure inside the imaging libraries: what was being done, to which file, and why.
public struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What ladder asked the library to do, for example "decode" or "encode JPEG".
    public var operation: String
    /// The file concerned, when there is one.
    public var path: String?
    /// The library's own explanation.
    public var reason: String

    public init(operation: String, path: String?, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    public var description: String {
        if let path { return "cannot \(operation) '\(path)': \(reason)" }
        return "cannot \(operation): \(reason)"
    }
}
