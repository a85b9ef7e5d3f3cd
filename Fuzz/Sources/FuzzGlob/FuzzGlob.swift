import FuzzSupport
import LadderCore

/// Glob patterns (pipeline.json's include and exclude) and their matching. The input's first
/// line is the pattern, the rest the path matched against it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let (pattern, path) = FuzzSupport.splitFirstLine(FuzzSupport.bytes(data, size))
    guard let glob = try? Glob(pattern) else { return 0 }
    _ = glob.matches(path)
    // A pattern without special characters matches itself.
    if !pattern.contains(where: { "*?[]{}!\\".contains($0) }) {
        precondition(glob.matches(pattern), "\"\(pattern)\" does not match itself")
    }
    return 0
}

@main
enum FuzzGlobMain {
    static func main() {
        FuzzSupport.run(
            seeds: {
                [
                    "**/*.{jpg,jpeg,png}\nphotos/2024/cat.jpg", "*.tm[p!]\nnotes.tmp", "private/**\nprivate/a/b/c.jpg",
                    "a?c/[a-z]*[!0-9].{JPG,{jpeg,jpg}}\nabc/holiday.jpeg", "**\n", "{a,b}{c,d}**/x\nad/y/x",
                ].map { Array($0.utf8) }
            }, fuzzOneInput)
    }
}
