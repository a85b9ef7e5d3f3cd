import Foundation
import LadderManifest

/// Finds the source files of a pipeline: regular files under the source folders that the
/// include and exclude patterns select.
///
/// Hidden files and folders (names starting with ".") and the output folder are passed over
/// silently. Special files (FIFOs, devices, sockets) are passed over and reported: reading one
/// could block forever. Symbolic links are passed over and reported, unless `followSymlinks` is
/// set; then they are followed only to files and folders inside a source folder, and a folder
/// reached twice (a loop) is walked once.
package struct SourceWalker {
    package let configuration: PipelineConfiguration

    package init(configuration: PipelineConfiguration) {
        self.configuration = configuration
    }

    /// What a walk found.
    package struct Result: Sendable {
        /// Sorted by path, each path once.
        package var files: [SourceFile]
        /// Entries passed over, and names that clash on other systems.
        package var warnings: [SourceWarning]
    }

    private struct Context {
        var label: String
        var roots: [String]
        var visited: Set<[UInt64]> = []
        /// In the order walked. The same path may come twice, from source folders that overlap.
        var files: [SourceFile] = []
        var skipped: [SourceWarning] = []
    }

    package func walk() throws(FileSystemError) -> Result {
        let roots = configuration.sources.map { Self.realPath(configuration.resolve($0)) ?? configuration.resolve($0) }
        var context = Context(label: "", roots: roots)
        for (source, root) in zip(configuration.sources, roots) {
            context.label = configuration.sourceLabel(source)
            let directory = try Directory.open(configuration.resolve(source))
            if let status = Directory.status(atPath: root) { context.visited.insert([status.device, status.inode]) }
            try walk(directory, relative: "", context: &context)
        }
        let files = Self.sortedOnce(context.files)
        context.skipped += Self.nameTwins(files.map(\.path))
        return Result(files: files, warnings: context.skipped.sorted { $0.path < $1.path })
    }

    /// `files` sorted by their paths' bytes, each path once (as the last walk that reached it
    /// found it). Names that differ only by Unicode normalization are different files here,
    /// though Swift's strings compare them equal. The positions are sorted, not the files:
    /// each folder is listed in order, so they are mostly in order already, and a file is
    /// moved once.
    static func sortedOnce(_ files: [SourceFile]) -> [SourceFile] {
        let order = files.indices.sorted { a, b in
            files[a].path.utf8Precedes(files[b].path) || (a < b && !files[b].path.utf8Precedes(files[a].path))
        }
        var sorted: [SourceFile] = []
        sorted.reserveCapacity(order.count)
        for (position, index) in order.enumerated() {
            // Sorted, so the next path is the same bytes unless this one precedes it.
            if position + 1 < order.count, !files[index].path.utf8Precedes(files[order[position + 1]].path) {
                continue
            }
            sorted.append(files[index])
        }
        return sorted
    }

    private func walk(_ directory: Directory, relative: String, context: inout Context) throws(FileSystemError) {
        let output = configuration.outputDirectory
        let listing = try directory.listing()
        if listing.undecodable > 0 {
            let folder = relative.isEmpty ? context.label : context.label + "/" + relative
            context.skipped.append(
                SourceWarning(
                    path: folder,
                    message: "\(listing.undecodable) name(s) that are not valid UTF-8; not read (rename them)"))
        }
        for name in listing.names where !name.hasPrefix(".") {
            let inside = relative.isEmpty ? name : relative + "/" + name
            let path = context.label == "." ? inside : context.label + "/" + inside
            let absolute = FilePath.join(directory.path, name)
            guard var status = try directory.status(of: name) else { continue }  // deleted meanwhile
            var readPath = absolute
            if status.kind == .symbolicLink {
                guard configuration.followSymlinks else {
                    context.skipped.append(
                        SourceWarning(
                            path: path, message: "symbolic link, not followed (set \"followSymlinks\": true to follow)")
                    )
                    continue
                }
                guard let target = Self.realPath(absolute),
                    context.roots.contains(where: { FilePath.relative(target, to: $0) != nil }),
                    let targetStatus = Directory.status(atPath: target)
                else {
                    context.skipped.append(
                        SourceWarning(
                            path: path,
                            message: "symbolic link to outside the source folders, or to nothing; not followed"))
                    continue
                }
                status = targetStatus
                readPath = target
            }
            switch status.kind {
            case .directory:
                if readPath == output || FilePath.relative(output, to: readPath) == "" { continue }
                if configuration.exclude.contains(where: { $0.matches(inside) || $0.matches(inside + "/") }) {
                    continue
                }
                guard context.visited.insert([status.device, status.inode]).inserted else {
                    context.skipped.append(
                        SourceWarning(path: path, message: "a folder already walked (a link loop); not walked again"))
                    continue
                }
                let child: Directory
                do {
                    child =
                        readPath == absolute
                        ? try directory.subdirectory(name, create: false) : try Directory.open(readPath)
                } catch {
                    context.skipped.append(SourceWarning(path: path, message: error.reason))
                    continue
                }
                try walk(child, relative: inside, context: &context)
            case .regular:
                guard configuration.include.matches(inside),
                    !configuration.exclude.contains(where: { $0.matches(inside) })
                else { continue }
                context.files.append(SourceFile(path: path, absolutePath: readPath, status: status))

            case .symbolicLink:
                context.skipped.append(
                    SourceWarning(path: path, message: "symbolic link to a symbolic link; not followed"))
            case .other:
                context.skipped.append(
                    SourceWarning(path: path, message: "not a regular file (FIFO, device or socket); not read"))
            }
        }
    }

    /// Paths that differ only by letter case or Unicode normalization: one file on macOS and
    /// Windows, two here. Both are built; the note says why a checkout elsewhere would differ.
    static func nameTwins(_ paths: [String]) -> [SourceWarning] {
        // Swift compares strings by canonical equivalence, so "é" and "e\u{301}" fall together.
        let groups = Dictionary(grouping: paths) { $0.lowercased() }
        return groups.values.filter { $0.count > 1 }.map { group in
            let sorted = group.sorted { $0.utf8Precedes($1) }

            return SourceWarning(
                path: sorted[0],
                message:
                    "has a twin whose name differs only by letter case or Unicode normalization (\(sorted.dropFirst().joined(separator: ", "))); on macOS and Windows they are one file"
            )
        }
    }

    /// The canonical absolute path, with every link resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
