import Foundation
import FuzzSupport
import LadderCore

/// The pipeline.json reader: a commit from anyone can change the pipeline that CI runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzSupport.bytes(data, size))
    _ = try? PipelineConfiguration.parse(bytes, file: "pipeline.json", baseDirectory: baseDirectory)
    return 0
}

/// A folder with a `photos` source folder in it, so that valid pipelines get through the folder checks.
let baseDirectory: String = {
    let folder = NSTemporaryDirectory() + "ladder-fuzz-pipeline-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    return folder
}()

@main
enum FuzzPipelineMain {
    static func main() {
        _ = baseDirectory
        FuzzSupport.run(
            seeds: {
                let full = """
                    {
                      "version": 1,
                      "sources": ["photos"],
                      "include": ["**/*.{jpg,jpeg,png}"],
                      "exclude": ["private/**", "*.tm[p!]"],
                      "output": "build/variants",
                      "manifest": "build/variants/manifest.json",
                      "background": "#ffffff",
                      "metadata": {"keep": ["Copyright"]},
                      "followSymlinks": false,
                      "variants": {
                        "small_thumb": {"maxWidth": 160, "maxHeight": 160, "quality": 80},
                        "full": {"maxWidth": 2560, "maxHeight": 2560, "quality": 85, "chroma": "444",
                                 "progressive": {"scans": 3, "script": {"color": "0,1,2: 0-0, 0, 1; 0: 1-63, 0, 0; 1,2: 0-0, 1, 0; # dc", "grayscale": "0: 0-0,0,0; 0: 1-63,0,0; 0: 1-63, 0, 0"}}}
                      },
                      "replay": {"chunkBytes": 16384, "firstPaintBudget": 0.25, "profiles": {"3g": {"downlinkKbps": 1600, "rttMs": 300}},
                                 "budgets": {"3g": {"firstPictureSeconds": 2, "completeSeconds": 9}}},
                      "limits": {"maxPixels": 100000000, "maxSide": 30000, "maxBands": 4, "maxFileBytes": 200000000, "maxScans": 100,
                                 "timeoutSeconds": 30},
                      "decoding": {"formats": ["jpeg", "png"], "failOn": "warning"}
                    }
                    """
                return [
                    Array(full.utf8), Array(#"{"sources": ["photos"]}"#.utf8),
                    Array(
                        #"{"sources": ["photos"], "variants": {"full": {"maxWidth": 99, "progressive": {"scans": 5}}}}"#
                            .utf8),
                ]
            }, fuzzOneInput)
    }
}
