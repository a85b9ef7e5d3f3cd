import LadderImaging

/// A file found under a source folder.
package struct SourceFile: Sendable, Hashable {
    /// The path written in the manifest: the source folder as pipeline.json names it, followed
    /// by the file's path inside that folder, `/`-separated ("examples/photos/cat.jpg").
    package var path: String
    /// The absolute path, for reading.
    package var absolutePath: String
    /// The file's identity when it was found, for the stat cache.
    package var status: FileStatus

    package init(path: String, absolutePath: String, status: FileStatus) {
        self.path = path
        self.absolutePath = absolutePath
        self.status = status
    }
}

/// Something about a source folder the user should know: an entry passed over (a link, a
/// special file), or names that clash on other systems.
package struct SourceWarning: Sendable, Hashable {
    package var path: String
    package var message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// A warning when the extension of `path` names another format than `format`, its content's.
    static func extensionMismatch(path: String, format: ImageFormat) -> SourceWarning? {
        let name = FilePath.name(path)
        guard let dot = name.lastIndex(of: "."),
            let named = ImageFormat.named(byExtension: String(name[name.index(after: dot)...])), named != format
        else { return nil }
        return SourceWarning(
            path: path,
            message:
                "named like \(named.rawValue.uppercased()) but the content is \(format.rawValue.uppercased()); ladder goes by the content"
        )
    }
}
