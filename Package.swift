// swift-tools-version: 6.2
import PackageDescription

/// Upcoming-feature flags shared by every Swift target, so the whole package speaks one dialect.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ladder",
    // What the app-side products (LadderClient, LadderManifest) need: Swift concurrency, and
    // the Foundation and ImageIO calls they make. The command-line tool itself runs on Linux.
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .executable(name: "ladder", targets: ["ladder"]),
        // What client apps link to resolve a source's SHA1 into variant paths; no libvips needed.
        .library(name: "LadderManifest", targets: ["LadderManifest"]),
        // What apps link to load and draw an image's placeholder and variants: Foundation and
        // ImageIO on Apple platforms, Foundation and libjpeg elsewhere; never libvips.
        .library(name: "LadderClient", targets: ["LadderClient"]),
    ],
    targets: [
        // MARK: - C libraries, found through pkg-config

        // libvips: decoding, resizing, colour management, metadata.
        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]),
        // libexif: reading and writing EXIF tags.
        .systemLibrary(
            name: "CExif", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"]), .brew(["libexif"])]),
        // libpng: a PNG's header chunks, which verify reads for every source.
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // Little CMS (libvips' colour engine): reading colour profiles, to tell wide gamuts.
        .systemLibrary(
            name: "CLCMS", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        // libjxl: the lossless JPEG XL recompression of JPEG rungs, its decoders, and butteraugli.
        .systemLibrary(
            name: "CJXL", pkgConfig: "libjxl",
            providers: [.apt(["libjxl-dev"]), .brew(["jpeg-xl"])]),
        // yajl: JSON parsed as a stream of events, so that verify reads a manifest of any size
        // one image at a time.
        .systemLibrary(
            name: "CYajl", pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]),
        // libjpeg-turbo: exact progressive scan scripts and buffered-image replay.
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),

        // Fixed-arity wrappers for what Swift cannot call: variadic libvips functions and macros.
        .target(name: "CLadder", dependencies: ["CVips", "CExif", "CLCMS", "CPNG"]),
        // libjpeg's setjmp error handling, macros and option structures; libjpeg only, so that
        // the app-side client links it without libvips.
        .target(name: "CLadderJPEG", dependencies: ["CJPEG"]),

        // MARK: - Swift modules

        // libjpeg-turbo's progressive decoding, fed as bytes arrive, and whole decodes: what both
        // the verifier's replay and the app-side client's decoder (on Linux) draw with.
        .target(name: "LadderJPEG", dependencies: ["CLadderJPEG", "CJPEG"], swiftSettings: swiftSettings),
        // The Swift face of the C libraries, with LadderJPEG re-exported: the build's only module
        // that imports C.
        .target(
            name: "LadderImaging",
            dependencies: [
                "CLadder", "CLadderJPEG", "LadderJPEG", "CVips", "CExif", "CLCMS", "CJXL", "CYajl",
                "LadderManifest",
            ],
            swiftSettings: swiftSettings),
        // The manifest format and the client-side resolver; pure Swift.
        .target(name: "LadderManifest", swiftSettings: swiftSettings),
        // The app-side loader: placeholder, rungs, scans, caches, decoding; on Apple platforms it
        // decodes with ImageIO, elsewhere with LadderJPEG.
        .target(
            name: "LadderClient",
            dependencies: ["LadderManifest", .target(name: "LadderJPEG", condition: .when(platforms: [.linux]))],
            swiftSettings: swiftSettings),
        // Configuration, planning, variants, manifest writing and verification.
        .target(
            name: "LadderCore", dependencies: ["LadderImaging", "LadderManifest"],
            swiftSettings: swiftSettings),
        // Argument parsing, terminal output and exit codes; `run(arguments:)` is its entry point.
        .target(name: "LadderCLI", dependencies: ["LadderCore"], swiftSettings: swiftSettings),
        .executableTarget(name: "ladder", dependencies: ["LadderCLI"], swiftSettings: swiftSettings),
        // Loads ladders from a server as an app does, prints when each picture was drawn, and
        // writes them as PNG files (with libvips, which the client itself does not link).
        .executableTarget(
            name: "ladder-serve-check",
            dependencies: [
                "LadderClient", "LadderManifest",
                .target(name: "LadderImaging", condition: .when(platforms: [.linux])),
            ], path: "examples/app/ServeCheck",
            swiftSettings: swiftSettings),

        // MARK: - Tests

        .testTarget(
            name: "LadderManifestTests", dependencies: ["LadderManifest"],
            exclude: ["References/make-thumbhash-references.py"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LadderClientTests", dependencies: ["LadderClient", "LadderCore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LadderImagingTests", dependencies: ["LadderImaging", "LadderCore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LadderCoreTests", dependencies: ["LadderCore"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "LadderCLITests", dependencies: ["LadderCLI", "LadderCore"],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
