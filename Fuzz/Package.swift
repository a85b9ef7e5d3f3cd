// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for every parser of untrusted bytes. Build and run them with scripts/fuzz,
// which adds `-sanitize=fuzzer,address`; this package stays out of the main build.

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
    dependencies: [.package(name: "ladder", path: "..")],
    targets: [
        // Seed writing and input slicing shared by the targets.
        // libFuzzer's driver, declared for Swift.
        .target(name: "CFuzzer"),
        .target(
            name: "FuzzSupport", dependencies: ["CFuzzer", .product(name: "LadderCore", package: "ladder")],
            swiftSettings: swiftSettings),
        fuzzTarget("FuzzJPEGStructure", [.product(name: "LadderCore", package: "ladder")]),
        fuzzTarget("FuzzReplay", [.product(name: "LadderCore", package: "ladder")]),
        fuzzTarget("FuzzManifest", [.product(name: "LadderManifest", package: "ladder")]),
        fuzzTarget("FuzzPipeline", [.product(name: "LadderCore", package: "ladder")]),
        fuzzTarget("FuzzScanScript", [.product(name: "LadderCore", package: "ladder")]),
        fuzzTarget("FuzzGlob", [.product(name: "LadderCore", package: "ladder")]),
    ],
    swiftLanguageModes: [.v6]
)
