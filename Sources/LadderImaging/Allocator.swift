import CLadder

/// The process's memory allocator.
public enum Allocator {
    /// Lets the threads that allocate from now on share at most `count` malloc arenas (glibc);
    /// without a limit each busy thread may get an arena of its own, which keeps what that
    /// thread freed. Does nothing where the C library has no such setting.
    public static func limitArenas(to count: Int) {
        _ = ladder_limit_malloc_arenas(Int32(count))
    }

    /// The bytes malloc holds from the system now: its heap, used or free, and the blocks it
    /// mapped on their own; nil where the C library cannot say. What a process freed but malloc
    /// keeps (fragmentation) counts: it stays resident.
    public static var footprintBytes: Int? {
        let bytes = ladder_malloc_footprint()
        return bytes < 0 ? nil : Int(bytes)
    }
}
