import FuzzSupport
import LadderCore

/// The scan-script parser (jpegtran notation in pipeline.json) and its validation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: FuzzSupport.bytes(data, size), as: UTF8.self)
    guard let script = try? ScanScript(parsing: text) else { return 0 }
    for components in 1...4 { _ = try? script.validate(componentCount: components) }
    // A parsed script written back in its own notation reads as the same script.
    let reread = try? ScanScript(parsing: script.description)
    precondition(reread == script, "\"\(script)\" does not read back as itself")
    return 0
}

@main
enum FuzzScanScriptMain {
    static func main() {
        FuzzSupport.run(
            seeds: {
                [
                    ScanScript.recommendedColor.description, ScanScript.recommendedGrayscale.description,
                    "# DC first\n0,1,2: 0-0, 0, 1;\n0: 1-5, 0, 2;\n2: 1-63, 0, 1;\n1: 1-63 0 1 ;\n0,1,2: 0-0, 1, 0;\n0: 1-63, 2, 1; # refine",
                    "0: 0-63, 0, 0;",
                ].map { Array($0.utf8) }
            }, fuzzOneInput)
    }
}
