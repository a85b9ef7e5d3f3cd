import LadderImaging
import Synchronization

/// The SHA-1 of every current source file, computed by whichever of verify's threads is free:
/// each call of `hashNext()` takes the next file no thread has taken.
final class SourceDigests: Sendable {
    /// The files, sorted by path (as `SourceWalker` gives them).
    let files: [SourceFile]
    private let next = Atomic<Int>(0)
    private let digests: Mutex<[Result<String, FileSystemError>?]>

    init(files: [SourceFile]) {
        self.files = files
        digests = Mutex(Array(repeating: nil, count: files.count))
    }

    /// How many files no thread has taken yet.
    var untaken: Int { max(0, files.count - next.load(ordering: .relaxed)) }

    /// Hashes the next file no thread has taken; false when every file is taken.
    func hashNext() -> Bool {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < files.count else { return false }
        let result: Result<String, FileSystemError>
        do throws(FileSystemError) {
            // As a stream: a source of any size costs one buffer, on every thread at once.
            result = .success(try Directory.digest(ofFileAtPath: files[index].absolutePath, .sha1).hex)
        } catch {
            result = .failure(error)
        }
        digests.withLock { $0[index] = result }
        return true
    }

    /// Each file's SHA-1 (lowercase hex) or why it could not be read, in the order of `files`;
    /// nil for a file not hashed.
    var results: [Result<String, FileSystemError>?] { digests.withLock { $0 } }
}
