import CLadder

/// The process's memory allocator.
public enum Allocator {
    /// Lets the threads that allocate from now on share at most `count` malloc arenas (glibc);
    /// without a limit each busy thread may get an arena of its own, which keeps what that
    /// thread freed. Does nothing where the C library has no such setting.
    public static func limitArenas(to count: Int) {
        _ = ladder_limit_malloc_arenas(Int32(count))
    }
}
