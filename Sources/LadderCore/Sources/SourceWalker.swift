/// Finds the source files of a pipeline: regular files under the source folders that the
/// include and exclude patterns select.
///
/// Hidden files and folders (names starting with ".") and the output folder are passed over
/// silently; symbolic links and special files (FIFOs, devices, sockets) are passed over and
/// reported, since reading them could leave the source tree or block forever.
public struct SourceWalker {
    public let configuration: PipelineConfiguration

    public init(configuration: PipelineConfiguration) {
        self.configuration = configuration
    }

    /// What a walk found.
    public struct Result: Sendable {
        /// Sorted by path, each path once.
        public var files: [SourceFile]
        public var skipped: [SkippedEntry]
    }

    public func walk() throws(FileSystemError) -> Result {
        var files: [String: SourceFile] = [:]
        var skipped: [SkippedEntry] = []
        let output = configuration.outputDirectory
        for source in configuration.sources {
            let root = configuration.resolve(source)
            let label = FilePath.normalize(source)
            let directory = try Directory.open(root)
            try walk(
                directory, relative: "", label: label, outputDirectory: output, files: &files, skipped: &skipped)
        }
        return Result(files: files.values.sorted { $0.path < $1.path }, skipped: skipped.sorted { $0.path < $1.path })
    }

    private func walk(
        _ directory: Directory, relative: String, label: String, outputDirectory: String,
        files: inout [String: SourceFile], skipped: inout [SkippedEntry]
    ) throws(FileSystemError) {
        for name in try directory.entries() where !name.hasPrefix(".") {
            let inside = relative.isEmpty ? name : relative + "/" + name
            let path = label == "." ? inside : label + "/" + inside
            let absolute = FilePath.join(directory.path, name)
            guard let status = try directory.status(of: name) else { continue }  // deleted meanwhile
            switch status.kind {
            case .directory:
                if absolute == outputDirectory || FilePath.relative(outputDirectory, to: absolute) == "" { continue }
                if configuration.exclude.contains(where: { $0.matches(inside) || $0.matches(inside + "/") }) {
                    continue
                }
                let child: Directory
                do {
                    child = try directory.subdirectory(name, create: false)
                } catch {
                    skipped.append(SkippedEntry(path: path, reason: error.reason))
                    continue
                }
                try walk(
                    child, relative: inside, label: label, outputDirectory: outputDirectory, files: &files,
                    skipped: &skipped)
            case .regular:
                guard configuration.include.matches(inside),
                    !configuration.exclude.contains(where: { $0.matches(inside) })
                else { continue }
                files[path] = SourceFile(path: path, absolutePath: absolute, status: status)
            case .symbolicLink:
                skipped.append(SkippedEntry(path: path, reason: "symbolic link, not followed"))
            case .other:
                skipped.append(SkippedEntry(path: path, reason: "not a regular file (FIFO, device or socket)"))
            }
        }
    }
}
