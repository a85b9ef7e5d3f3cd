public import Foundation

extension Manifest {
    /// Why a manifest file cannot be used.
    public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The manifest as JSON: pretty-printed, keys sorted, no timestamps, a final newline, so
    /// that the same build always gives the same bytes.
    public func jsonData() -> Data {
        let encoder = Self.jsonEncoder()
        var normalized = self
        for (key, entry) in normalized.images { normalized.images[key]?.sources = entry.sources.sorted() }
        // Encoding plain structs of strings and integers cannot fail.
        var data = (try? encoder.encode(normalized)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// The encoder of `jsonData()`.
    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Reads and checks a manifest. Manifests are untrusted input: besides the JSON shape, the
    /// version, every key and every path is checked, so that nothing read from one can point a
    /// reader outside the manifest's folder. The first problem found is thrown.
    public init(jsonData data: Data) throws(ReadError) {
        let manifest = try Manifest(shapeOf: data)
        if let first = manifest.contentProblems().first {
            throw ReadError(reason: "\(first.location): \(first.message)")
        }
        self = manifest
    }

    /// A problem inside an otherwise well-formed manifest: where (a JSON path) and what.
    public struct ContentProblem: Sendable, Equatable {
        public var location: String
        public var message: String
        /// The image entry concerned, when there is one.
        public var image: String?
        /// The variant concerned, when there is one.
        public var variant: String?
    }

    /// Every problem with keys and paths, for readers that report all of them (ladder verify).
    public func contentProblems() -> [ContentProblem] {
        var problems: [ContentProblem] = []
        if let shard, !(1...max(1, shard.count)).contains(shard.index) {
            problems.append(
                ContentProblem(
                    location: "$.shard", message: "shard \(shard.index) of \(shard.count) does not exist"))
        }
        // The common case, every key and path in order, without sorting tens of thousands of keys.
        if images.allSatisfy({ Self.isSound($0.key, $0.value) }) { return problems }
        for key in images.keys.sorted() {
            guard let entry = images[key] else { continue }
            problems += Self.contentProblems(key, entry)
        }
        return problems
    }

    /// The problems with one image's key and paths, as `contentProblems()` tells them: for
    /// readers that take a manifest an image at a time.
    public static func contentProblems(_ key: String, _ entry: ImageEntry) -> [ContentProblem] {
        if isSound(key, entry) { return [] }
        var problems: [ContentProblem] = []
        if !isSHA1(key) {
            problems.append(
                ContentProblem(
                    location: "$.images[\"\(key)\"]", message: "key is not a SHA1 (40 lowercase hex digits)",
                    image: key))
        }
        for name in entry.variants.keys.sorted() {
            guard let variant = entry.variants[name] else { continue }
            let location = "$.images[\"\(key)\"].variants[\"\(name)\"]"
            var located = [(location + ".path", variant.path)]
            for format in (variant.formats ?? [:]).keys.sorted() {
                located.append((location + ".formats.\(format).path", variant.formats?[format]?.path ?? ""))
            }
            for (place, path) in located {
                if let problem = ManifestPath.problem(with: path) {
                    problems.append(
                        ContentProblem(
                            location: place, message: "\(problem): \"\(path)\"", image: key, variant: name))
                }
            }
        }
        return problems
    }

    /// True when the key is a SHA1 and every file path is sound: the common case, found
    /// without building anything.
    private static func isSound(_ key: String, _ entry: ImageEntry) -> Bool {
        isSHA1(key)
            && entry.variants.values.allSatisfy { variant in
                ManifestPath.problem(with: variant.path) == nil
                    && (variant.formats?.values.allSatisfy { ManifestPath.problem(with: $0.path) == nil } ?? true)
            }
    }

    /// Reads a manifest's JSON shape and version only; `contentProblems()` checks the rest.
    public init(shapeOf data: Data) throws(ReadError) {
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw ReadError(reason: "not valid JSON or not a manifest: \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw ReadError(reason: "missing \"\(key.stringValue)\" at \(Self.jsonPath(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ReadError(reason: "wrong type at \(Self.jsonPath(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.valueNotFound(_, context) {
            throw ReadError(reason: "null at \(Self.jsonPath(context.codingPath))")
        } catch {
            throw ReadError(reason: "unreadable manifest: \(error)")
        }
        guard manifest.version == Manifest.currentVersion else {
            throw ReadError(
                reason: "manifest version \(manifest.version) is not supported (expected \(Manifest.currentVersion))")
        }
        self = manifest
    }

    /// True for 40 lowercase hexadecimal digits.
    public static func isSHA1(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("$") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path + "." + key.stringValue
        }
    }
}

extension Manifest.VariantEntry {
    /// The paths of the variant's files: its JPEG rung, then its format siblings by format.
    public var filePaths: [String] {
        guard let formats, !formats.isEmpty else { return [path] }
        return [path] + formats.sorted { $0.key < $1.key }.map(\.value.path)
    }
}
