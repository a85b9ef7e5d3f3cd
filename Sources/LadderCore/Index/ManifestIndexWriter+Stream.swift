import Foundation
package import LadderManifest

extension ManifestIndexWriter {
    /// The index written while the images are handed over one at a time in SHA1 order (a
    /// merge of shards), without holding them: each prefix file is made once its images have
    /// passed, and when its bytes change it is written to a temporary file and flushed,
    /// `batchFiles` files at a time, `Directory.concurrentFlushes` of them at once, on a queue of
    /// its own while the images that follow are handed over (`batchesInFlight` batches at most:
    /// a million images make 65,536 files, and the merging thread waited for their flushes
    /// half of its time); `finish()` waits for them, renames them into place in order, the
    /// layout last, and removes the prefix files of another length, as `write(_:previous:)` does.
    package final class Stream {
        private let writer: ManifestIndexWriter
        private let folder: Directory
        private let imageCount: Int
        private let prefixes: [String]
        /// The prefix whose images are being gathered, by its place in `prefixes`.
        private var position = 0
        private var images: [String: ManifestIndex.Entry] = [:]
        /// The files in the folder when the stream began: only those are read to compare.
        private let existing: Set<String>
        private var waiting: [(name: String, bytes: [UInt8])] = []
        private var written: [(temporary: String, name: String)] = []
        /// The batches being written and flushed, oldest first.
        private var flushing: [Background<Result<[(temporary: String, name: String)], FileSystemError>>] = []
        private let flushes = DispatchQueue(label: "ladder.index.flush")
        private var finished = false

        /// Changed files written together.
        static let batchFiles = 64
        /// Batches written and flushed while the images that follow are handed over.
        static let batchesInFlight = 4

        fileprivate init(writer: ManifestIndexWriter, imageCount: Int) throws(FileSystemError) {
            self.writer = writer
            self.imageCount = imageCount
            (folder, existing) = try writer.openIndexFolder()
            prefixes = ManifestIndex.prefixes(length: ManifestIndex.prefixLength(forImageCount: imageCount))
        }

        deinit {
            guard !finished else { return }
            for batch in flushing { if case .success(let files) = batch.value { written += files } }
            for file in written { try? folder.removeFile(file.temporary) }
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
            while !flushing.isEmpty { try collectFlushed() }
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
            // A name looked up in vain waits for the folder's lock, which the flushes take.
            if existing.contains(name), (try? folder.readFile(name)) == bytes { return }
            waiting.append((name, bytes))
            if waiting.count >= Self.batchFiles { try writeWaiting() }
        }

        /// Hands the files waiting to the flushing queue, once fewer than `batchesInFlight`
        /// batches are there.
        private func writeWaiting() throws(FileSystemError) {
            if flushing.count >= Self.batchesInFlight { try collectFlushed() }
            let batch = Batch(files: waiting, folder: folder)
            waiting.removeAll()
            flushing.append(Background(on: flushes) { batch.write() })
        }

        /// Waits for the oldest batch being flushed; throws why it could not be written.
        private func collectFlushed() throws(FileSystemError) {
            let batch = flushing.removeFirst()
            written += try batch.value.get()
        }

        /// Files to write to temporary files and flush.
        private struct Batch: Sendable {
            let files: [(name: String, bytes: [UInt8])]
            let folder: Directory

            func write() -> Result<[(temporary: String, name: String)], FileSystemError> {
                Result { () throws(FileSystemError) in
                    let temporaries = try folder.writeTemporaries(files)
                    return zip(temporaries, files.map(\.name)).map { ($0, $1) }
                }
            }
        }
    }

    /// An index to write from images handed over in SHA1 order (`Stream`), `imageCount` of them.
    package func stream(imageCount: Int) throws(FileSystemError) -> Stream {
        try Stream(writer: self, imageCount: imageCount)
    }
}
