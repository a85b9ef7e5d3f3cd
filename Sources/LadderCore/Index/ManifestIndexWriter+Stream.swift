package import LadderManifest

extension ManifestIndexWriter {
    /// The index written while the images are handed over one at a time in SHA1 order (a
    /// merge of shards), without holding them: each prefix file is made once its images have
    /// passed, and when its bytes change it is written to a temporary file at once (flushed,
    /// `Directory.concurrentFlushes` at a time, `batchFiles` files at most waiting); `finish()`
    /// renames them into place in order, the layout last, and removes the prefix files of
    /// another length, as `write(_:previous:)` does.
    package final class Stream {
        private let writer: ManifestIndexWriter
        private let folder: Directory
        private let imageCount: Int
        private let prefixes: [String]
        /// The prefix whose images are being gathered, by its place in `prefixes`.
        private var position = 0
        private var images: [String: ManifestIndex.Entry] = [:]
        private var waiting: [(name: String, bytes: [UInt8])] = []
        private var written: [(temporary: String, name: String)] = []
        private var finished = false

        /// Changed files written together.
        static let batchFiles = 64

        fileprivate init(writer: ManifestIndexWriter, imageCount: Int) throws(FileSystemError) {
            self.writer = writer
            self.imageCount = imageCount
            folder = try writer.openIndexFolder()
            prefixes = ManifestIndex.prefixes(length: ManifestIndex.prefixLength(forImageCount: imageCount))
        }

        deinit {
            if !finished { for file in written { try? folder.removeFile(file.temporary) } }
        }

        /// Adds the image `sha1`; the images come in ascending order of SHA1.
        package func add(_ sha1: String, _ entry: Manifest.ImageEntry) throws(FileSystemError) {
            while position < prefixes.count && !sha1.hasPrefix(prefixes[position]) { try endPrefix() }
            images[sha1] = ManifestIndex.Entry(entry)
        }

        /// Writes the rest and puts every changed file in place; returns how many files changed
        /// (removed ones included).
        package func finish() throws(FileSystemError) -> Int {
            while position < prefixes.count { try endPrefix() }
            let layout = ManifestIndex.Layout(prefixLength: prefixes.first?.count ?? 2)
            try add(file: ManifestIndex.layoutName, [UInt8](layout.jsonData()))
            try writeWaiting()
            try folder.rename(written.map(\.temporary), to: written.map(\.name))
            finished = true
            return try writer.settle(folder, imageCount: imageCount, changed: written.count)
        }

        private func endPrefix() throws(FileSystemError) {
            let bytes = [UInt8](ManifestIndex(images: images).jsonData())
            images.removeAll(keepingCapacity: true)
            try add(file: prefixes[position] + ".json", bytes)
            position += 1
        }

        private func add(file name: String, _ bytes: [UInt8]) throws(FileSystemError) {
            if (try? folder.readFile(name)) == bytes { return }
            waiting.append((name, bytes))
            if waiting.count >= Self.batchFiles { try writeWaiting() }
        }

        private func writeWaiting() throws(FileSystemError) {
            let temporaries = try folder.writeTemporaries(waiting)
            written += zip(temporaries, waiting.map(\.name)).map { ($0, $1) }
            waiting.removeAll()
        }
    }

    /// An index to write from images handed over in SHA1 order (`Stream`), `imageCount` of them.
    package func stream(imageCount: Int) throws(FileSystemError) -> Stream {
        try Stream(writer: self, imageCount: imageCount)
    }
}
