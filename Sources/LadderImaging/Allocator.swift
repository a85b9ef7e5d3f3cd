import CLadder

/// The process's memory allocator.
package enum Allocator {
    /// Lets the threads that allocate from now on share at most `count` malloc arenas (glibc);
    /// without a limit each busy thread may get an arena of its own, which keeps what that
    /// thread freed. Does nothing where the C library has no such setting.
    package static func limitArenas(to count: Int) {
        _ = ladder_limit_malloc_arenas(Int32(count))
    }

    /// Lets malloc keep freed pictures for the next ones (glibc): blocks up to 32 MiB come from its
    /// heap instead of being mapped on their own and unmapped when freed, and up to 256 MiB of
    /// free heap is kept. A replay allocates and frees planes of a few megabytes by the dozen;
    /// each fresh mapping faults in zeroed pages one by one, which cost about a tenth of a
    /// replay's CPU time. The process keeps what it freed, up to its peak use. Does nothing where
    /// the C library has no such setting.
    package static func keepFreedPictures() {
        _ = ladder_keep_freed_blocks(32 << 20, 256 << 20)
    }

    /// The bytes malloc holds from the system now: its heap, used or free, and the blocks it
    /// mapped on their own; nil where the C library cannot say. What a process freed but malloc
    /// keeps (fragmentation) counts: it stays resident.
    package static var footprintBytes: Int? {
        let bytes = ladder_malloc_footprint()
        return bytes < 0 ? nil : Int(bytes)
    }
}
