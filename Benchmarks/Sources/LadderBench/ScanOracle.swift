import Foundation
import LadderCore
import LadderResearch

/// `ladder-bench scan-oracle FILE...` (for scripts/scan-scripts): for each JPEG, the versions
/// `ladder replay --compare` prints (the file as it is, libjpeg's default progression, the fixed
/// 5-scan script) and the best of every valid 5-scan script (`ScanComparison.bestValid`), as
/// `{"files": [{"path", "versions", "error"}]}`. Slow: about a hundred encodes of each file.
enum ScanOracle {
    struct Output: Encodable {
        var files: [File]
    }

    struct File: Encodable {
        var path: String
        var versions: [ScanVersionScore]
        var error: String?
    }

    static func run(_ paths: [String]) -> Int32 {
        var files: [File] = []
        var failed = false
        for path in paths {
            do {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                let versions = try ScanComparison.compare(bytes) + ScanComparison.bestValid(bytes)
                files.append(File(path: path, versions: versions, error: nil))
            } catch {
                failed = true
                files.append(File(path: path, versions: [], error: "\(error)"))
            }
        }
        printJSONLine(Output(files: files))
        return failed ? 1 : 0
    }
}
