// swift-tools-version: 6.2
import PackageDescription

// Benchmarks and research tools, kept out of the shipped ladder: timing commands for the scripts
// in scripts/ (bench, replay-bench, bench-store) and the search over every valid scan script.
// They need ladder's internals (`package` declarations), which only modules of the same package
// see, so this package compiles ladder's library modules itself from the main package's
// Sources (the folders under Sources/ here are links to them). Build with
//
//     swift build -c release --package-path Benchmarks
//
// and run `Benchmarks/.build/release/ladder-bench --help`.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ladder-benchmarks",
    products: [
        .executable(name: "ladder-bench", targets: ["LadderBench"]),
        .executable(name: "store-sqlite", targets: ["StoreSQLite"]),
    ],
    targets: [
        // ladder's library modules, as the main package declares them.
        .systemLibrary(name: "CVips", pkgConfig: "vips"),
        .systemLibrary(name: "CExif", pkgConfig: "libexif"),
        .systemLibrary(name: "CLCMS", pkgConfig: "lcms2"),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg"),
        .systemLibrary(name: "CJXL", pkgConfig: "libjxl"),
        .systemLibrary(name: "CYajl", pkgConfig: "yajl"),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng"),
        .target(name: "CLadder", dependencies: ["CVips", "CExif", "CLCMS", "CPNG"]),
        .target(name: "CLadderJPEG", dependencies: ["CJPEG"]),
        .target(name: "LadderJPEG", dependencies: ["CLadderJPEG", "CJPEG"], swiftSettings: swiftSettings),
        .target(
            name: "LadderImaging",
            dependencies: [
                "CLadder", "CLadderJPEG", "LadderJPEG", "CVips", "CExif", "CLCMS", "CJXL", "CYajl",
                "LadderManifest",
            ],
            swiftSettings: swiftSettings),
        .target(name: "LadderManifest", swiftSettings: swiftSettings),
        .target(name: "LadderCore", dependencies: ["LadderImaging", "LadderManifest"], swiftSettings: swiftSettings),

        // The benchmarks' own code.
        .target(name: "LadderResearch", dependencies: ["LadderCore"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "LadderBench", dependencies: ["LadderCore", "LadderResearch", "CYajl"], swiftSettings: swiftSettings),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "StoreSQLite", dependencies: ["CSQLite", "LadderImaging"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LadderBenchTests", dependencies: ["LadderResearch", "LadderCore"], swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
