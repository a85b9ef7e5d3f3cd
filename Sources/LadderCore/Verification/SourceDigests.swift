import LadderImaging
import Synchronization

/// The SHA-1 of every current source file and what its header says, computed by whichever of
/// verify's threads is free: each call of `hashNext()` takes the next file no thread has taken.
final class SourceDigests: Sendable {
    /// The files, sorted by path (as `SourceWalker` gives them).
    let files: [SourceFile]
    /// The formats the pipeline decodes: only their headers are read.
    let formats: Set<ImageFormat>
    private let next = Atomic<Int>(0)
    private let digests: Mutex<[Result<String, FileSystemError>?]>
    private let headers: Mutex<[SourceHeader.Read?]>

    init(files: [SourceFile], formats: Set<ImageFormat>) {
        self.files = files
        self.formats = formats
        digests = Mutex(Array(repeating: nil, count: files.count))
        headers = Mutex(Array(repeating: nil, count: files.count))
    }

    /// Hashes the next file no thread has taken, and reads its header from the first bytes the
    /// hash read; false when every file is taken.
    func hashNext() -> Bool {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < files.count else { return false }
        let result: Result<String, FileSystemError>
        var header: SourceHeader.Read?
        do throws(FileSystemError) {
            // As a stream: a source of any size costs one buffer, on every thread at once.
            let read = try Directory.digest(
                ofFileAtPath: files[index].absolutePath, .sha1, keepingFirst: SourceHeader.headBytes)
            result = .success(read.hex)
            header = SourceHeader.read(head: read.head, fileBytes: read.bytes, formats: formats)
        } catch {
            result = .failure(error)
        }
        digests.withLock { $0[index] = result }
        headers.withLock { $0[index] = header }
        return true
    }

    /// Each file's SHA-1 (lowercase hex) or why it could not be read, in the order of `files`;
    /// nil for a file not hashed.
    var results: [Result<String, FileSystemError>?] { digests.withLock { $0 } }

    /// What the header of the file at `index` said; nil when it was not hashed or not read.
    func header(at index: Int) -> SourceHeader.Read? { headers.withLock { $0[index] } }
}

/// What a source's header says that its variants depend on, read without decoding pixels: by
/// libpng or libjpeg when they can vouch for what libvips would say (`FrameHeader`), else by
/// libvips, as the build's render reads it.
struct SourceHeader: Sendable, Equatable {
    var format: String
    /// The stored size, before the EXIF orientation.
    var storedSize: PixelSize
    /// The size once the orientation is applied: what the recipes fit into their boxes.
    var upright: PixelSize
    var bands: Int
    /// True when the source has an alpha channel (used or not).
    var hasAlpha: Bool

    init(_ header: ImageHeader) {
        format = header.format
        storedSize = header.storedSize
        upright = header.size
        bands = header.bands
        hasAlpha = header.hasAlpha
    }

    /// A PNG's or JPEG's header as libpng or libjpeg read it, which is libvips' (`FrameHeader`).
    init(_ frame: FrameHeader) {
        format = frame.format.rawValue
        storedSize = frame.size
        upright = frame.size
        bands = frame.bands
        hasAlpha = frame.hasAlpha
    }

    /// What reading a source's header gave.
    enum Read: Sendable, Equatable {
        case header(SourceHeader)
        /// The first bytes were not enough (a format whose header may lie anywhere in the file,
        /// or a JPEG whose first scan starts beyond them): read the whole file.
        case needsWholeFile
        /// Not a format the pipeline decodes, or a header libvips cannot read.
        case none(String)
    }

    /// The bytes of a source kept from its hash for reading its header: a JPEG's segments
    /// before its first scan and a PNG's chunks before its image data almost always fit.
    static let headBytes = 1 << 20

    /// The header of a file of `fileBytes` bytes from its first bytes `head`. A JPEG's header
    /// (up to its first scan, EXIF included) and a PNG's (up to its first image data) are
    /// whole in `head` when libvips can read them from it; other formats only when `head` is
    /// the whole file.
    static func read(head: [UInt8], fileBytes: Int, formats: Set<ImageFormat>) -> Read {
        guard case .format(let format) = ImageFormat.sniff(head), formats.contains(format) else {
            return .none("not a format the pipeline decodes")
        }
        let whole = head.count == fileBytes
        guard whole || format == .jpeg || format == .png else { return .needsWholeFile }
        if let frame = FrameHeader(reading: head, format: format) { return .header(SourceHeader(frame)) }
        do {
            return .header(SourceHeader(try ImageHeader(reading: head, format: format, metadata: false)))
        } catch {
            return whole ? .none(error.reason) : .needsWholeFile
        }
    }

    /// The header of the whole file `bytes`.
    static func read(whole bytes: [UInt8], formats: Set<ImageFormat>) -> Read {
        read(head: bytes, fileBytes: bytes.count, formats: formats)
    }
}
