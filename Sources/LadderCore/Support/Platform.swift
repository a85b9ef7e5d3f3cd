// Everything in LadderCore that differs between Apple platforms and Linux, in one place: the C
// library that holds POSIX, and the calls whose names or fields differ. The other files use
// POSIX names that both C libraries share, through Foundation, and these wrappers where a
// method of the same name would hide the C function.
#if canImport(Darwin)
    @preconcurrency import Darwin
#elseif canImport(Glibc)
    @preconcurrency import Glibc
#endif

enum Platform {
    /// Opens a folder for the *at() calls, not following a final link only when the C library's
    /// flags say so; -1 with errno on failure.
    static func openDirectory(_ path: String) -> Int32 {
        #if canImport(Darwin)
            Darwin.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #else
            Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #endif
    }

    /// write(2): bytes written, or -1 with errno.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
            Darwin.write(descriptor, bytes, count)
        #else
            Glibc.write(descriptor, bytes, count)
        #endif
    }

    /// read(2): bytes read, 0 at the end, or -1 with errno.
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
            Darwin.read(descriptor, buffer, count)
        #else
            Glibc.read(descriptor, buffer, count)
        #endif
    }

    /// Sends SIGKILL to a process.
    static func killHard(_ process: Int32) {
        #if canImport(Darwin)
            _ = Darwin.kill(process, SIGKILL)
        #else
            _ = Glibc.kill(process, SIGKILL)
        #endif
    }

    /// A file's modification and status-change times, in nanoseconds since 1970 (the fields are
    /// st_mtimespec/st_ctimespec on Apple platforms, st_mtim/st_ctim on Linux).
    static func times(of info: stat) -> (modified: Int64, changed: Int64) {
        #if canImport(Darwin)
            let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
            let (modified, changed) = (info.st_mtim, info.st_ctim)
        #endif
        return (
            Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
            Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec)
        )
    }
}
