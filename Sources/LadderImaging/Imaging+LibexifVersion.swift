internal import CLadder
import Foundation

extension Imaging {
    /// The libexif shared library loaded in this process, with every link resolved.
    package static let libexifLibraryPath: String? = {
        guard let fileName = ladder_libexif_path() else { return nil }
        return URL(fileURLWithPath: String(cString: fileName)).resolvingSymlinksInPath().path
    }()

    static let libexifVersion: String = libexifLibraryPath.map { libexifVersion(libraryAt: $0) } ?? "unknown"

    /// libexif has no version call, so its version is the file name of the shared library at
    /// `path`, which carries its full ABI version ("libexif.so.12.3.4"). Nothing beside the
    /// library is read: a pkg-config file exists only where the development package is installed,
    /// and a runtime-only install must give the same recipe fingerprints as a development one.
    package static func libexifVersion(libraryAt path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }
}

extension Imaging {
    /// What encodes the format siblings, for the recipe fingerprints of variants that have them:
    /// the files of the loaded libwebp, libheif and libaom (which carry their versions, as
    /// libexif's does; libvips loads them with itself and its HEIF module), and libjxl's version.
    package static let siblingEncoders: String = {
        // libvips loads its modules, and with the HEIF one libheif and libaom, when it starts.
        try? start()
        try? loadHEIFModule()
        let stems: [String] = ["libwebp", "libheif", "libaom"]
        let libraries = stems.map { (stem: String) -> String in
            ladder_loaded_library(stem).map {
                URL(fileURLWithPath: String(cString: $0)).resolvingSymlinksInPath().lastPathComponent
            } ?? "\(stem) unknown"
        }
        return (libraries + ["libjxl \(JPEGXL.version)"]).joined(separator: ", ")
    }()
}
