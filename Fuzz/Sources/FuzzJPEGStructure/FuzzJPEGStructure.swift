import FuzzSupport
import LadderCore
import LadderImaging

/// The JPEG segment walker, which reads every source, variant and replayed file first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzSupport.bytes(data, size)
    guard let structure = try? JPEGStructure(parsing: bytes, scanLimit: 100) else { return 0 }
    // What the walk reports must lie inside the file.
    for scan in structure.scans {
        precondition(scan.markerOffset < scan.dataOffset && scan.dataOffset <= scan.endOffset)
        precondition(scan.endOffset <= bytes.count)
        _ = scan.script.description
    }
    if let end = structure.endOfImage { precondition(end <= bytes.count) }
    return 0
}

@main
enum FuzzJPEGStructureMain {
    static func main() {
        FuzzSupport.run(seeds: FuzzSupport.jpegSeeds, fuzzOneInput)
    }
}
