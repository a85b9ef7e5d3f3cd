// Everything in LadderJPEG that differs between Apple platforms and Linux, in one place: the
// C library that releases what the C libraries allocate.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

package enum Platform {
    /// Releases memory that C code allocated with malloc.
    package static func free(_ pointer: UnsafeMutableRawPointer?) {
        #if canImport(Darwin)
            Darwin.free(pointer)
        #else
            Glibc.free(pointer)
        #endif
    }
}
