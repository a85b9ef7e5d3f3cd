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

/// Something in a source folder that was passed over, and why.
public struct SkippedEntry: Sendable, Hashable {
    public var path: String
    public var reason: String
}
