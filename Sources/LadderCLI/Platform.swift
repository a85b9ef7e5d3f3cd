// Everything in LadderCLI that differs between Apple platforms and Linux, in one place. The
// other files use POSIX names that both C libraries share (isatty, strerror, errno), through
// Foundation.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

enum Platform {
    /// write(2), which `Console`'s own `write` methods would otherwise hide: bytes written, or
    /// -1 with errno.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
            Darwin.write(descriptor, bytes, count)
        #else
            Glibc.write(descriptor, bytes, count)
        #endif
    }
}
