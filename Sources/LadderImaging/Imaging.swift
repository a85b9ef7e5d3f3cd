internal import CLadder
internal import CVips
import Foundation
import Synchronization

/// Start-up and identity of the imaging libraries.
package enum Imaging {
    /// The versions of the C libraries ladder was built and runs with.
    package struct Versions: Sendable, Equatable {
        package var libvips: String
        package var libjpeg: String
        package var libexif: String
    }

    private static let started = Mutex<Bool>(false)

    /// Starts libvips once per process. Safe to call from any thread, any number of times.
    ///
    /// libvips' operation cache is switched off: a batch never revisits an input, and a cache
    /// keyed by file name could serve a file that changed in place.
    ///
    /// - Parameters:
    ///   - threadsPerImage: worker threads libvips may use inside one image; ladder
    ///     parallelises across images, so 1 is the right value for batches.
    ///   - tileHeight: libvips' tile height (its `--vips-tile-height` option, 128 by default),
    ///     nil to keep libvips' own. With one thread it is also the height of the strips libvips
    ///     computes an image into memory by, and a sequential decode keeps 4 such strips of rows
    ///     of the source cached in each of its two line caches (the loader's and the
    ///     thumbnail's): 2 x 512 rows by default, 12 MB for a 4032-pixel-wide photo. The pixels
    ///     do not depend on it.
    ///   - formats: the only formats this process will decode, nil for any. libvips loads its
    ///     modules (`vips-modules-8.14`: HEIF, and PDF, ImageMagick, OpenSlide and JPEG XL,
    ///     which ladder never lets run) when it starts, each with its libraries; with `formats`
    ///     only the modules these formats need are loaded.
    /// - Throws: `ImagingError` when libvips cannot start.
    package static func start(
        threadsPerImage: Int = 1, tileHeight: Int? = nil, formats: Set<ImageFormat>? = nil
    ) throws(ImagingError) {
        let failure: ImagingError? = started.withLock { isStarted in
            guard !isStarted else { return nil }
            let modules = formats.flatMap { loadingNoModules(keeping: Set($0.compactMap(\.libvipsModule))) }
            guard ladder_vips_init("ladder") == 0 else {
                return ImagingError(operation: "start libvips", path: nil, reason: takeVipsError())
            }
            for module in modules ?? [] {
                // As libvips does with its modules: one that does not load leaves its format unread.
                if let loaded = g_module_open(module, G_MODULE_BIND_LAZY) { g_module_make_resident(loaded) }
            }
            if let tileHeight {
                guard setOptions(["--vips-tile-height=\(tileHeight)"]) else {
                    return ImagingError(operation: "start libvips", path: nil, reason: "cannot set the tile height")
                }
            }
            vips_cache_set_max(0)
            vips_cache_set_max_mem(0)
            vips_cache_set_max_files(0)
            vips_concurrency_set(Int32(max(1, threadsPerImage)))
            installWarningHandler()
            isStarted = true
            return nil
        }
        if let failure { throw failure }
    }

    /// Makes the coming vips_init() load no module: it loads every one in the `vips-modules-X.Y`
    /// folder beside its library unless VIPSHOME names another installation, here one without
    /// modules (libvips takes only its modules and translations from there). Returns the files
    /// of the modules in `names` to load instead, nil (and changes nothing) when VIPSHOME is
    /// set already or libvips' library cannot be found.
    private static func loadingNoModules(keeping names: Set<String>) -> [String]? {
        guard ProcessInfo.processInfo.environment["VIPSHOME"] == nil, let library = ladder_libvips_path() else {
            return nil
        }
        let folder = URL(fileURLWithPath: String(cString: library)).deletingLastPathComponent()
            .appendingPathComponent("vips-modules-\(vips_version(0)).\(vips_version(1))")
        setenv("VIPSHOME", "/nonexistent", 1)
        return names.sorted().map { folder.appendingPathComponent("vips-\($0).so").path }
    }

    /// Parses `arguments` as libvips' own command-line options (`--vips-...`, the ones the vips
    /// tools take; vips_add_option_entries()): the only way libvips offers to set some of them.
    private static func setOptions(_ arguments: [String]) -> Bool {
        guard let context = g_option_context_new(nil) else { return false }
        defer { g_option_context_free(context) }
        let group = g_option_group_new("vips", "libvips", "libvips options", nil, nil)
        vips_add_option_entries(group)
        g_option_context_set_main_group(context, group)
        let storage = (["ladder"] + arguments).map { strdup($0) }
        defer { storage.forEach { free($0) } }
        // GOption removes what it parsed from the array it is given: hand it a copy.
        var argv = storage
        var argc = Int32(argv.count)
        return argv.withUnsafeMutableBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return g_option_context_parse(context, &argc, &pointer, nil) != 0 && argc == 1
        }
    }

    /// The most memory libvips has held at once in this process so far: its pictures, region
    /// buffers and caches (Wraps vips_tracked_get_mem_highwater()).
    package static var peakTrackedBytes: Int { Int(vips_tracked_get_mem_highwater()) }

    /// The versions of libvips, libjpeg-turbo and libexif in use.
    package static var versions: Versions {
        Versions(
            libvips: String(cString: vips_version_string()), libjpeg: JPEGLibrary.version, libexif: libexifVersion)
    }
}

/// Takes libvips' process-wide error buffer in one locked step, so that a message from another
/// thread's operation is not lost or doubled. Returns a fallback when the buffer is empty.
func takeVipsError() -> String {
    guard let copy = vips_error_buffer_copy() else { return "no detail from libvips" }
    defer { g_free(copy) }
    let text = String(cString: copy).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? "no detail from libvips" : text
}

extension Imaging {
    /// Frees libvips' per-thread buffers; call on a thread that used libvips before it ends
    /// (Wraps vips_thread_shutdown()).
    package static func threadWillExit() {
        // Without vips_init() there are no per-thread buffers, and the call would crash.
        guard started.withLock({ $0 }) else { return }
        vips_thread_shutdown()
    }

    /// A plain pthread mutex: a Synchronization `Mutex` waits in a priority-inheriting futex,
    /// which spun in the kernel for a sixth of verify's CPU on photos.
    private static let vectorCodeLock = NSLock()

    /// Runs `body`, which makes and releases libvips images that shrink (a reduction), while no
    /// other thread of this process runs such a body. libvips compiles a vector program with
    /// liborc for each reduction of 8-bit samples and frees it with the image; liborc 0.4.33
    /// (Debian 12's) keeps the lists of that code's memory without a lock, and threads doing
    /// so at once corrupt them: `ladder verify`, which fits each placeholder's picture in
    /// 100 x 100 on every thread, crashed in one run out of three on 3,000 photos, and in none
    /// of 20 with liborc off (VIPS_NOVECTOR=1). Turning liborc off would change the pixels a
    /// reduction makes, which the placeholder check holds to the build's; a render worker
    /// renders one source at a time, so builds need no lock. Every image `body` makes must be
    /// released before it returns.
    package static func reducingAlone<Result>(
        _ body: () throws(ImagingError) -> Result
    ) throws(ImagingError)
        -> Result
    {
        vectorCodeLock.lock()
        defer { vectorCodeLock.unlock() }
        return try body()
    }
}

// MARK: - Library warnings

extension Imaging {
    /// Receives libvips' warnings (GLib log messages of the "VIPS" domain), which would otherwise
    /// be printed straight to standard error. They are discarded until a handler is set.
    package static func setWarningHandler(_ handler: (@Sendable (String) -> Void)?) {
        warningHandler.withLock { $0 = handler }
    }

    static let warningHandler = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Warnings recorded by `collectingWarnings(_:)`, while one is running.
    static let collectedWarnings = Mutex<[String]?>(nil)

    /// Runs `body` and returns the libvips warnings emitted meanwhile, with its result.
    ///
    /// libvips reports decoder damage (truncated data, corrupt entropy codes) as process-wide
    /// GLib warnings, emitted from its own worker threads; they can be told apart only when one
    /// image is processed at a time in the process, which the caller must ensure.
    package static func collectingWarnings<Result, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> (Result, [String]) {
        collectedWarnings.withLock { $0 = [] }
        vips_error_clear()
        defer { collectedWarnings.withLock { $0 = nil } }
        let result = try body()
        return (result, collectedWarnings.withLock { $0 ?? [] })
    }

    static func installWarningHandler() {
        let levels = G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue
        g_log_set_handler(
            "VIPS", GLogLevelFlags(rawValue: levels),
            { _, _, message, _ in
                guard let message else { return }
                let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !text.isEmpty else { return }
                Imaging.collectedWarnings.withLock { $0?.append(text) }
                Imaging.warningHandler.withLock { $0 }?(text)
            }, nil)
    }
}
