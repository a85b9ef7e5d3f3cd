/// Reads one JSON object of a configuration file key by key, producing `ConfigurationError`s
/// that name the JSON path of the offending value, and refusing keys it was not asked about.
struct ConfigurationReader {
    let file: String
    let path: String
    private let object: [String: JSONValue]
    private var consumed: Set<String> = []

    init(file: String, path: String, value: JSONValue) throws(ConfigurationError) {
        guard case .object(let object) = value else {
            throw ConfigurationError(file: file, jsonPath: path, message: "expected an object, found \(value.summary)")
        }
        // null never stands for "the default": a key that is present must hold a value, so that
        // a template's `"output": null` is an error at its JSON path, not a silent default.
        if let key = object.keys.sorted().first(where: { object[$0] == .null }) {
            throw ConfigurationError(
                file: file, jsonPath: Self.child(path, key),
                message: "null is not a value here; give a value, or leave \"\(key)\" out to use its default")
        }
        self.file = file
        self.path = path
        self.object = object
    }

    func error(_ key: String?, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, jsonPath: key.map { Self.child(path, $0) } ?? path, message: message)
    }

    static func child(_ path: String, _ key: String) -> String {
        let isIdentifier =
            key.first.map { $0.isLetter || $0 == "_" } ?? false
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return isIdentifier ? "\(path).\(key)" : "\(path)[\"\(key)\"]"
    }

    func has(_ key: String) -> Bool {
        if case .some(.null) = object[key] { return false }
        return object[key] != nil
    }

    mutating func value(_ key: String) -> JSONValue? {
        consumed.insert(key)
        if case .some(.null) = object[key] { return nil }
        return object[key]
    }

    mutating func integer(
        _ key: String, in range: ClosedRange<Int>, default fallback: Int?
    ) throws(ConfigurationError) -> Int {
        switch value(key) {
        case .integer(let number) where range.contains(number):
            return number
        case nil:
            if let fallback { return fallback }
            throw error(key, "required: an integer from \(range.lowerBound) to \(range.upperBound)")
        case let other?:
            throw error(
                key, "expected an integer from \(range.lowerBound) to \(range.upperBound), found \(other.summary)")
        }
    }

    mutating func number(
        _ key: String, in range: ClosedRange<Double>, default fallback: Double?
    ) throws(ConfigurationError) -> Double {
        let expected = "a number from \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound))"
        switch value(key) {
        case .integer(let number) where range.contains(Double(number)):
            return Double(number)
        case .number(let number) where range.contains(number):
            return number
        case nil:
            if let fallback { return fallback }
            throw error(key, "required: \(expected)")
        case let other?:
            throw error(key, "expected \(expected), found \(other.summary)")
        }
    }

    mutating func string(_ key: String, default fallback: String?) throws(ConfigurationError) -> String {
        switch value(key) {
        case .string(let text) where !text.isEmpty:
            return text
        case nil:
            if let fallback { return fallback }
            throw error(key, "required: a non-empty string")
        case let other?:
            throw error(key, "expected a non-empty string, found \(other.summary)")
        }
    }

    mutating func bool(_ key: String, default fallback: Bool) throws(ConfigurationError) -> Bool {
        switch value(key) {
        case .bool(let flag): return flag
        case nil: return fallback
        case let other?: throw error(key, "expected true or false, found \(other.summary)")
        }
    }

    mutating func stringArray(
        _ key: String, default fallback: [String]?, allowEmpty: Bool = true
    ) throws(ConfigurationError) -> [String] {
        switch value(key) {
        case .array(let items):
            var strings: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item, !text.isEmpty else {
                    throw error(nil, "expected a non-empty string, found \(item.summary)").at(
                        Self.child(path, key) + "[\(index)]")
                }
                strings.append(text)
            }
            if strings.isEmpty && !allowEmpty { throw error(key, "expected at least one entry") }
            return strings
        case nil:
            if let fallback { return fallback }
            throw error(key, "required: an array of strings")
        case let other?:
            throw error(key, "expected an array of strings, found \(other.summary)")
        }
    }

    mutating func reader(_ key: String) throws(ConfigurationError) -> ConfigurationReader? {
        guard let value = value(key) else { return nil }
        return try ConfigurationReader(file: file, path: Self.child(path, key), value: value)
    }

    /// The key any object may hold to explain itself: JSON has no comments, and JSON Schema
    /// names its annotation "$comment" too. Its value must be a string; ladder ignores it.
    static let commentKey = "$comment"

    /// All keys of the object, for objects whose keys are names (such as variants).
    var keys: [String] { object.keys.filter { $0 != Self.commentKey }.sorted() }

    /// Refuses any key that was not read, suggesting the closest known one.
    func finish(known: [String]) throws(ConfigurationError) {
        if let comment = object[Self.commentKey] {
            guard case .string = comment else {
                throw error(Self.commentKey, "expected a string (a comment), found \(comment.summary)")
            }
        }

        for key in object.keys.sorted() where !consumed.contains(key) && key != Self.commentKey {
            var message = "unknown key \"\(key)\""
            if let suggestion = known.min(by: { editDistance($0, key) < editDistance($1, key) }),
                editDistance(suggestion, key) <= max(2, key.count / 3)
            {
                message += "; did you mean \"\(suggestion)\"?"
            } else {
                message += " (known keys: \(known.joined(separator: ", ")))"
            }
            throw error(key, message)
        }
    }
}

extension ConfigurationError {
    func at(_ jsonPath: String) -> ConfigurationError {
        ConfigurationError(file: file, jsonPath: jsonPath, message: message)
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let a = Array(lhs.lowercased())
    let b = Array(rhs.lowercased())
    if a.isEmpty { return b.count }
    var previous = Array(0...b.count)
    for (i, characterA) in a.enumerated() {
        var current = [i + 1] + Array(repeating: 0, count: b.count)
        for (j, characterB) in b.enumerated() {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (characterA == characterB ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
