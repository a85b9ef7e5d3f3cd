import Foundation
import LadderImaging
package import LadderManifest

/// A manifest read without holding it: a first pass reads everything but the images (and
/// counts them), then `images` hands them over a batch at a time, each read into the manifest's
/// own model from the events of the pass that frames the document (`JSONMemberStream`,
/// `ImageEntryParser`), or by `JSONDecoder` when that reader is not sure of an entry. Memory
/// stays at a chunk and a batch whatever the number of images.
///
/// A manifest that cannot be read this way (bad JSON, a value of the wrong type) is decoded
/// whole once (`Manifest(shapeOf:)`), so that its problem is told as it always was.
package struct ManifestStream: Sendable {
    /// The manifest's path.
    package let path: String
    /// The most bytes one member may take: an image's entry, or a top-level field (`failures`
    /// holds one line per failed source). The manifest itself may be of any size: it is read a
    /// chunk at a time (a million images make about 1.8 GB).
    package let byteLimit: Int
    /// The manifest without its images.
    package let header: Manifest
    /// How many images it has.
    package let imageCount: Int

    /// Bytes read at a time.
    package let chunkBytes: Int

    /// Reads the manifest's top-level fields and counts its images, or throws why it cannot be
    /// read.
    package init(path: String, byteLimit: Int, chunkBytes: Int = 1 << 20) throws(Failure) {
        self.path = path
        self.byteLimit = byteLimit
        self.chunkBytes = chunkBytes
        let stream = try Self.open(path, byteLimit: byteLimit, chunkBytes: chunkBytes, imagesHandedOver: false)
        var fields: [(key: String, value: [UInt8])] = []
        do {
            while case let members = try stream.members.next(atLeast: 64), !members.isEmpty {
                fields += members.filter { $0.parent == nil }.map { ($0.key, $0.value) }
            }
        } catch {
            throw Self.problem(path, byteLimit: byteLimit, streamError: error)
        }
        // The images are read later: in their place, an empty object (when they are one).
        if stream.members.streamedObjects.contains("images") { fields.append(("images", [0x7B, 0x7D])) }
        var object: [UInt8] = [0x7B]
        for (key, value) in fields {
            if object.count > 1 { object.append(0x2C) }
            object += Self.quoted(key) + [0x3A] + value
        }
        object.append(0x7D)
        do {
            header = try Manifest(shapeOf: Data(object))
        } catch {
            throw Self.problem(
                path, byteLimit: byteLimit, streamError: JSONMemberStream.ReadError(reason: error.reason))
        }
        imageCount = stream.members.streamedCount
    }

    /// What stops a manifest from being read: the file, or what is in it.
    package enum Failure: Error, Sendable {
        case file(FileSystemError)
        case manifest(reason: String)
    }

    /// The images, read from the start of the manifest, a batch at a time (`Images.next`).
    package func images() throws(Failure) -> Images {
        let (members, file) = try Self.open(path, byteLimit: byteLimit, chunkBytes: chunkBytes, imagesHandedOver: true)
        return Images(stream: self, members: members, file: file)
    }

    /// The images of a manifest, in its order, handed over a batch at a time.
    package final class Images {
        let stream: ManifestStream
        let members: JSONMemberStream
        let file: FileCloser
        let decoder = JSONDecoder()

        init(stream: ManifestStream, members: JSONMemberStream, file: FileCloser) {
            self.stream = stream
            self.members = members
            self.file = file
        }

        /// The next images, at least `count` unless the manifest ends first; empty at its end.
        /// Throws the manifest's problem when an image cannot be read.
        package func next(atLeast count: Int) throws(Failure) -> [(key: String, entry: Manifest.ImageEntry)] {
            var images: [(key: String, entry: Manifest.ImageEntry)] = []
            do {
                while images.count < count {
                    let read = try members.next(atLeast: count - images.count)
                    if read.isEmpty { break }
                    for member in read where member.parent == "images" {
                        // Read with the stream's own events; else JSONDecoder tells what is wrong.
                        let entry =
                            try member.entry ?? decoder.decode(Manifest.ImageEntry.self, from: Data(member.value))
                        images.append((member.key, entry))
                    }
                }
            } catch let error as JSONMemberStream.ReadError {
                throw ManifestStream.problem(stream.path, byteLimit: stream.byteLimit, streamError: error)
            } catch {
                throw ManifestStream.problem(
                    stream.path, byteLimit: stream.byteLimit,
                    streamError: JSONMemberStream.ReadError(reason: "\(error)"))
            }
            return images
        }
    }

    /// An open manifest, read a chunk at a time; the file is closed when the stream ends.
    private static func open(
        _ path: String, byteLimit: Int, chunkBytes: Int, imagesHandedOver: Bool
    ) throws(Failure) -> (members: JSONMemberStream, file: FileCloser) {
        let file: Int32
        do {
            file = try Directory.openToRead(atPath: path, limit: .max)
        } catch {
            throw .file(error)
        }
        let closer = FileCloser(file)
        let members = JSONMemberStream(
            streaming: ["images"], handsOverStreamed: imagesHandedOver, readsImageEntries: true,
            memberLimit: byteLimit
        ) {
            var chunk = [UInt8](repeating: 0, count: chunkBytes)
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, chunkBytes) }
            guard count >= 0 else { throw FileSystemError.current("read", path) }
            chunk.removeSubrange(count...)
            return count == 0 ? nil : chunk
        }
        return (members, closer)
    }

    /// The problem of a manifest the stream could not read, as reading it whole tells it;
    /// the stream's own reason when reading it whole finds none, when a member is over the
    /// limit, or when the manifest is too large to be read whole.
    static func problem(_ path: String, byteLimit: Int, streamError: JSONMemberStream.ReadError) -> Failure {
        if streamError.isOverLimit { return .manifest(reason: streamError.reason) }
        do {
            _ = try Manifest(shapeOf: Data(try Directory.readFile(atPath: path, limit: byteLimit)))
        } catch let error as FileSystemError {
            if error.code == 0 && error.reason.contains("over the limit") {
                return .manifest(reason: "not valid JSON or not a manifest: \(streamError.reason)")
            }
            return .file(error)
        } catch let error as Manifest.ReadError {
            return .manifest(reason: error.reason)
        } catch {
            return .manifest(reason: "\(error)")
        }
        return .manifest(reason: "not valid JSON or not a manifest: \(streamError.reason)")
    }

    /// A JSON string of `text` (keys as the stream gave them, unescaped).
    private static func quoted(_ text: String) -> [UInt8] {
        Array((try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8))
    }

    /// Closes a file once nothing holds it.
    final class FileCloser {
        let file: Int32
        init(_ file: Int32) { self.file = file }
        deinit { close(file) }
    }
}
