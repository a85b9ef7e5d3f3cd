import LadderImaging
import LadderManifest

// What travels between the build and its render workers. Everything is Codable so that the
// request's header and the response's header can be sent as JSON next to the raw bytes.

extension ScanScript: Codable {
    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try ScanScript(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension RGBColor: Codable {
    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let color = RGBColor(text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a #rrggbb color: \(text)"))
        }
        self = color
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The header of a render request. The source's bytes follow it, unless `file` names a file
/// for the worker to read.
struct RenderRequestHeader: Codable {
    var variants: [VariantRecipe]
    var settings: RenderSettings
    var file: SourceFileRequest? = nil
}

/// A source that the render worker reads from its file (within the settings' byte limit) and
/// checks against the SHA1 the build planned it with, so that the build process never holds a
/// source's bytes, and what is rendered is exactly what the manifest will name.
struct SourceFileRequest: Codable {
    var path: String
    var sha1: String

    /// What the build says of a source whose bytes no longer match the SHA1 it was planned with.
    static let changed = "the file changed while ladder was reading it; run the build again"

    /// The file's bytes, when they are still those of `sha1`.
    func read(limit: Int) throws(RenderFailure) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try Directory.readFile(atPath: path, limit: limit)
        } catch {
            throw RenderFailure(error.reason, concernsTheSource: false)
        }
        guard Checksum.hex(.sha1, of: bytes) == sha1 else {
            throw RenderFailure(Self.changed, concernsTheSource: false)
        }
        return bytes
    }
}

/// The header of a render response; the variants' bytes follow it, in order.
struct RenderResponseHeader: Codable {
    struct Variant: Codable {
        var name: String
        var width: Int
        var height: Int
        var progressive: Bool
        var scans: Int
        var length: Int
        var script: ScanScript?
        var budgetAdvice: String?
        /// The format siblings, whose bytes follow the JPEG's, in this order.
        var siblings: [Sibling]?
        var skippedSiblings: [SiblingFormat]?
    }

    struct Sibling: Codable {
        var format: SiblingFormat
        var length: Int
    }

    var failure: String?
    /// False when the failure says nothing about the source's content (its file could not be
    /// read, or changed); nil stands for true.
    var failureConcernsTheSource: Bool?
    var facts: SourceFacts?
    var variants: [Variant]?
    /// The length of the source rendered.
    var sourceBytes: Int?
    /// The most memory libvips held at once in the worker so far (its tracked allocations:
    /// pictures and region buffers), in bytes.
    var imagingPeakBytes: Int?
    /// What the worker's malloc held from the system after the render (its heap, used or free,
    /// and its own mapped blocks), in bytes: the heap only grows, so this is its peak.
    var mallocBytes: Int?

    init(failure: RenderFailure) {
        self.failure = failure.reason
        if !failure.concernsTheSource { failureConcernsTheSource = false }
    }

    init(_ source: RenderedSource, sourceBytes: Int) {
        self.sourceBytes = sourceBytes
        facts = source.facts
        variants = source.variants.map {
            Variant(
                name: $0.name, width: $0.size.width, height: $0.size.height, progressive: $0.progressive,
                scans: $0.scans, length: $0.bytes.count, script: $0.script, budgetAdvice: $0.budgetAdvice,
                siblings: $0.siblings.isEmpty
                    ? nil : $0.siblings.map { Sibling(format: $0.format, length: $0.bytes.count) },
                skippedSiblings: $0.skippedSiblings.isEmpty ? nil : $0.skippedSiblings)
        }
    }

    /// Rebuilds the rendered source from this header and the bytes that followed it.
    func renderedSource(payload: [UInt8]) throws(RenderFailure) -> RenderedSource {
        if let failure { throw RenderFailure(failure, concernsTheSource: failureConcernsTheSource ?? true) }
        guard let facts, let variants else {
            throw RenderFailure("the render worker sent an incomplete answer")
        }
        var offset = 0
        var rendered: [RenderedVariant] = []
        func take(_ length: Int) throws(RenderFailure) -> [UInt8] {
            guard length >= 0, offset + length <= payload.count else {
                throw RenderFailure("the render worker sent fewer bytes than it announced")
            }
            defer { offset += length }
            return Array(payload[offset..<(offset + length)])
        }
        for variant in variants {
            let bytes = try take(variant.length)
            var siblings: [RenderedSibling] = []
            for sibling in variant.siblings ?? [] {
                siblings.append(RenderedSibling(format: sibling.format, bytes: try take(sibling.length)))
            }
            rendered.append(
                RenderedVariant(
                    name: variant.name, size: PixelSize(width: variant.width, height: variant.height),
                    progressive: variant.progressive, scans: variant.scans, bytes: bytes, script: variant.script,
                    budgetAdvice: variant.budgetAdvice, siblings: siblings,
                    skippedSiblings: variant.skippedSiblings ?? []))
        }
        return RenderedSource(facts: facts, variants: rendered)
    }
}
