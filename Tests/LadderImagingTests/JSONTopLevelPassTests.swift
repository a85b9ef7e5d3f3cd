import Foundation
import LadderImaging
import Testing

/// The pass that reads only a document's top level and counts the members of its streamed
/// objects (a manifest's `images`), which it passes over without yajl, held to Foundation's
/// `JSONSerialization` reading the whole document.
@Suite("JSON top-level pass")
struct JSONTopLevelPassTests {
    /// Strings with every byte that matters to finding where an object ends: quotes, escapes,
    /// brackets, colons, and the streamed object's own name.
    static let hardStrings = [
        "plain", "", "images", "a \"quoted\" word", "back\\slash\\", "\\\"", "{[:]}", "}", "]", ":", "\"}",
        "a\\\"}:{", "日本 \u{e9}\u{1F600}", "tab\tnew\nline", "\u{1}\u{1f}", "images\": {",
    ]

    /// A JSON value of `depth` levels at most, drawn by `random`.
    static func value(_ random: inout SeededGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &random) {
        case 0: return hardStrings.randomElement(using: &random)!
        case 1: return Int.random(in: -1_000_000...1_000_000, using: &random)
        case 2: return Bool.random(using: &random)
        case 3: return NSNull()
        case 4: return Double(Int.random(in: 0...1000, using: &random)) / 8
        case 5, 6:
            var object: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                // "images" inside a member is not the top level's: never passed over.
                object[hardStrings.randomElement(using: &random)!] = value(&random, depth: depth - 1)
            }
            return object
        default: return (0..<Int.random(in: 0...4, using: &random)).map { _ in value(&random, depth: depth - 1) }
        }
    }

    /// A top-level object with an `images` object of random members (or, one time in eight,
    /// an `images` that is not an object), among other members.
    static func document(_ random: inout SeededGenerator) -> [String: Any] {
        var document: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            document[hardStrings.randomElement(using: &random)!] = value(&random, depth: 3)
        }
        if Int.random(in: 0..<8, using: &random) == 0 {
            document["images"] = value(&random, depth: 0)
        } else {
            var images: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                images[hardStrings.randomElement(using: &random)! + "\(images.count)"] = value(&random, depth: 4)
            }
            document["images"] = images
        }
        return document
    }

    /// The top level of `bytes` as the pass reads it, `chunk` bytes at a time: each member but
    /// the streamed ones, and how many members the streamed objects have.
    static func topLevel(
        _ bytes: [UInt8], chunk: Int
    ) throws -> (fields: [String: [UInt8]], count: Int, streamed: Set<String>) {
        var offset = 0
        let stream = JSONMemberStream(streaming: ["images"], handsOverStreamed: false) {
            guard offset < bytes.count else { return nil }
            defer { offset += chunk }
            return Array(bytes[offset..<min(offset + chunk, bytes.count)])
        }
        var fields: [String: [UInt8]] = [:]
        while case let read = try stream.next(atLeast: 4), !read.isEmpty {
            for member in read {
                #expect(member.parent == nil, "the streamed objects' members are only counted")
                fields[member.key] = member.value
            }
        }
        return (fields, stream.streamedCount, stream.streamedObjects)
    }

    @Test(
        "the top level and the count of images are what JSONSerialization reads, strings full of brackets and quotes, pretty or compact, 1 byte to a megabyte at a time"
    )
    func countsWhatJSONSerializationReads() throws {
        var random = SeededGenerator(seed: 29)
        var counted = 0
        for number in 0..<300 {
            let document = Self.document(&random)
            let options: JSONSerialization.WritingOptions = number % 2 == 0 ? [.prettyPrinted, .sortedKeys] : []
            let bytes = [UInt8](try JSONSerialization.data(withJSONObject: document, options: options))
            let images = document["images"] as? [String: Any]
            for chunk in [1, 2, 7, 64, 1 << 20] where chunk < 8 ? number % 10 == 0 : true {
                let read = try Self.topLevel(bytes, chunk: chunk)
                #expect(read.count == (images?.count ?? 0), "document \(number), chunks of \(chunk)")
                #expect(read.streamed == (images == nil ? [] : ["images"]), "document \(number)")
                // The other members are handed over as their exact JSON.
                var expected = document
                if images != nil { expected["images"] = nil }
                #expect(Set(read.fields.keys) == Set(expected.keys), "document \(number), chunks of \(chunk)")
                for (key, value) in expected {
                    let bytes = try #require(read.fields[key])
                    let decoded = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
                    #expect(
                        NSDictionary(dictionary: ["v": decoded]) == NSDictionary(dictionary: ["v": value]),
                        "document \(number), member \(key)")
                }
                counted += read.count
            }
        }
        #expect(counted > 1000, "the documents have images to count")
    }

    @Test("an images member whose name has an escape, or two images members, are counted as yajl reads them")
    func namesAsYajlReadsThem() throws {
        let documents = [
            (#"{"im\u0061ges": {"a": 1, "b": {"c": 2}}, "version": 1}"#, 2),
            (#"{"images": {"a": 1}, "x": [], "images": {"b": 2, "c": "}"}}"#, 3),
            (#"{"x": {"images": {"a": 1}}, "images": {}}"#, 0),
            (#"{"x": "images", "images": {"a:b": ":", "c": [":", {"d": 1}]}}"#, 2),
            (#"{"images" : [ {"a": 1} ], "y": {"images": {"b": 1}}}"#, 0),
        ]
        for (text, count) in documents {
            for chunk in [1, 3, 1 << 20] {
                let read = try Self.topLevel(Array(text.utf8), chunk: chunk)
                #expect(read.count == count, "\(text), chunks of \(chunk)")
            }
        }
    }

    @Test("a document broken inside its images is refused by the pass when what follows cannot be read")
    func brokenInsideImages() throws {
        for text in [
            #"{"images": {"a": [1, 2}, "version": 1}"#,
            #"{"images": {"a": "open}, "version": 1}"#,
            #"{"images": {"a": {"b": 1}"#,
        ] {
            #expect(throws: JSONMemberStream.ReadError.self, "\(text)") {
                _ = try Self.topLevel(Array(text.utf8), chunk: 4)
            }
        }
    }
}

/// A reproducible source of random numbers (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
