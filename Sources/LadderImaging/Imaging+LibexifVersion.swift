internal import CLadder
import Foundation

extension Imaging {
    /// libexif has no version call, so its version is read from the pkg-config file installed
    /// beside the shared library that is actually loaded; the library's own file name is the
    /// fallback (it carries the ABI version, for example "libexif.so.12.3.4").
    static let libexifVersion: String = {
        guard let fileName = ladder_libexif_path() else { return "unknown" }
        let libraryPath = URL(fileURLWithPath: String(cString: fileName)).resolvingSymlinksInPath()
        let pkgConfig = libraryPath.deletingLastPathComponent()
            .appendingPathComponent("pkgconfig/libexif.pc")
        if let text = try? String(contentsOf: pkgConfig, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Version:") })
        {
            return line.dropFirst("Version:".count).trimmingCharacters(in: .whitespaces)
        }
        return libraryPath.lastPathComponent
    }()
}
