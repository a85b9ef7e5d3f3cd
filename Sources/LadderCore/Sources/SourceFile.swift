/// A file found under a source folder.
public struct SourceFile: Sendable, Hashable {
    /// The path written in the manifest: the source folder as pipeline.json names it, followed
    /// by the file's path inside that folder, `/`-separated ("examples/photos/cat.jpg").
    public var path: String
    /// The absolute path, for reading.
    public var absolutePath: String
    /// The file's identity when it was found, for the stat cache.
    public var status: FileStatus

    public init(path: String, absolutePath: String, status: FileStatus) {
        self.path = path
        self.absolutePath = absolutePath
        self.status = status
    }
}

/// Something about a source folder the user should know: an entry passed over (a link, a
/// special file), or names that clash on other systems.
public struct SourceWarning: Sendable, Hashable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}
