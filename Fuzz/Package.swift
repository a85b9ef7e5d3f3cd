// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for every parser of untrusted bytes. Build and run them with scripts/fuzz,
// which adds `-sanitize=fuzzer,address`; this package stays out of the main build. The targets
// reach ladder's internals (`package` declarations), which only modules of the same package
// see, so this package compiles ladder's library modules itself from the main package's Sources
// (the folders under Sources/ here named like them are links), with the sanitizers on.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

/// One executable per fuzz target. It defines `LLVMFuzzerTestOneInput`, and its `@main` writes
/// the seeds and hands over to libFuzzer's driver.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, swiftSettings: swiftSettings)
}

let package = Package(
    name: "ladder-fuzz",
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

        // Seed writing and input slicing shared by the targets.
        // libFuzzer's driver, declared for Swift.
        .target(name: "CFuzzer"),
        .target(
            name: "FuzzSupport", dependencies: ["CFuzzer", "LadderCore"],
            swiftSettings: swiftSettings),
        fuzzTarget("FuzzJPEGStructure", ["LadderCore"]),
        fuzzTarget("FuzzReplay", ["LadderCore"]),
        fuzzTarget("FuzzManifest", ["LadderManifest"]),
        fuzzTarget("FuzzPipeline", ["LadderCore"]),
        fuzzTarget("FuzzScanScript", ["LadderCore"]),
        fuzzTarget("FuzzGlob", ["LadderCore"]),
    ],
    swiftLanguageModes: [.v6]
)
