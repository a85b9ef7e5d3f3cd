import Foundation

/// Takes the insides out of the top-level members of a JSON document whose names are given
/// and whose values are objects, a chunk at a time, and counts the members it took: what a
/// pass that reads only a manifest's top level, and counts its images, needs of them.
///
/// A manifest's `images` are nearly all its bytes, and yajl's pass over them, which events
/// the stream then ignores, was a sixth of a merge's instructions: this scan finds the end of
/// the object by its brackets and quotes alone, so that yajl reads `"images": {}` in its place.
/// It checks nothing: what it skips is read again, by yajl, when the images are read. On a
/// document that is not valid JSON it may end an object early or never; yajl then refuses
/// what follows, or the images' own read does.
///
/// A member is skipped only when its name is written without escapes, as `JSONTextWriter`
/// writes it; a name with an escape (`"im\u0061ges"`) is left to yajl, which reads it whole.
struct JSONObjectSkipper {
    /// The names of the members to skip, as written (their UTF-8 bytes, without quotes).
    private let names: [[UInt8]]
    private let longestName: Int
    /// How many members the skipped objects held (the colons at their own level).
    private(set) var skippedMembers = 0

    /// Open containers outside the skipped objects: 1 inside the top-level object.
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The string being read at depth 1 (a name, when a colon follows), while it may still be
    /// one of `names`; nil once it cannot.
    private var candidate: [UInt8]?
    /// What came last at depth 1: one of `names`, then the colon after it.
    private var expecting = Expecting.nothing
    /// Open containers inside the skipped object, its own included; 0 when not skipping.
    private var skipping = 0

    private enum Expecting {
        case nothing
        case colon
        case object
    }

    init(names: Set<String>) {
        self.names = names.map { Array($0.utf8) }
        longestName = self.names.map(\.count).max() ?? 0
    }

    /// `chunk` without the insides of the skipped objects: their opening and closing braces
    /// are kept.
    mutating func filter(_ chunk: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        kept.reserveCapacity(skipping > 0 ? 64 : chunk.count)
        chunk.withUnsafeBufferPointer { bytes in
            var from = skipping > 0 ? nil : Optional(0)
            var index = 0
            while index < bytes.count {
                if skipping > 0 {
                    index = skip(bytes, from: index)
                    if skipping == 0 { from = index - 1 }
                    continue
                }
                let byte = bytes[index]
                index += 1
                if inString {
                    read(stringByte: byte)
                    continue
                }
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D:
                    continue
                case 0x22:
                    inString = true
                    candidate = depth == 1 ? [] : nil
                case 0x7B where depth == 1:
                    guard expecting == .object else {
                        depth += 1
                        break
                    }
                    // The brace is kept; what follows it is not, up to its closing brace.
                    kept += bytes[from!..<index]
                    from = nil
                    skipping = 1
                case 0x7B, 0x5B: depth += 1
                case 0x7D, 0x5D: depth -= 1
                case 0x3A where depth == 1:
                    if expecting == .colon {
                        expecting = .object
                        continue
                    }
                default: break
                }
                // Anything else at the top level's own level ends what was expected there.
                expecting = .nothing
            }
            if let from { kept += bytes[from...] }
        }
        return kept
    }

    /// A byte of a string outside the skipped objects.
    private mutating func read(stringByte byte: UInt8) {
        if escaped {
            escaped = false
            candidate = nil
        } else if byte == 0x5C {
            escaped = true
            candidate = nil
        } else if byte == 0x22 {
            inString = false
            // The opening quote ended what was expected before; a name may start it again.
            if let name = candidate, names.contains(name) { expecting = .colon }
            candidate = nil
        } else if candidate != nil {
            if candidate!.count < longestName { candidate!.append(byte) } else { candidate = nil }
        }
    }

    /// Skips bytes of a skipped object from `start`; returns the index past the last one read:
    /// past its closing brace when it ended (`skipping` is then 0), else the chunk's end.
    /// Strings, most of a manifest's bytes, are passed over with `memchr`, many bytes at a
    /// time; between them only brackets and colons count.
    private mutating func skip(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let base = bytes.baseAddress!
        let end = bytes.count
        var index = start
        var depth = skipping
        var members = 0
        defer {
            skipping = depth
            skippedMembers += members
        }
        let structural = Self.structural
        while index < end {
            if inString {
                // A chunk that ended inside an escape: byte by byte up to the string's end.
                if escaped {
                    index = scanString(bytes, from: index)
                    continue
                }
                // The string ends at the next quote unless a backslash comes first.
                guard let quote = memchr(base + index, 0x22, end - index) else {
                    if memchr(base + index, 0x5C, end - index) != nil { return scanString(bytes, from: index) }
                    return end
                }
                let at = UnsafePointer<UInt8>(quote.assumingMemoryBound(to: UInt8.self)) - base
                if memchr(base + index, 0x5C, at - index) != nil {
                    index = scanString(bytes, from: index)
                    continue
                }
                inString = false
                index = at + 1
                continue
            }
            while index < end && !structural[Int(bytes[index])] { index += 1 }
            guard index < end else { return end }
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x22: inString = true
            case 0x7B, 0x5B: depth += 1
            case 0x7D, 0x5D:
                depth -= 1
                if depth == 0 { return index }
            case 0x3A where depth == 1: members += 1
            default: break
            }
        }
        return index
    }

    /// Reads a string's bytes one at a time from `start`, up to its end or the chunk's, for a
    /// string with escapes; returns the index past the last byte read.
    private mutating func scanString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count && inString {
            let byte = bytes[index]
            index += 1
            if escaped {
                escaped = false
            } else if byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                inString = false
            }
        }
        return index
    }

    /// The bytes that matter between strings in a skipped object: quotes, brackets and colons.
    private static let structural: [Bool] = (0...255).map {
        [0x22, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A].contains($0)
    }
}
