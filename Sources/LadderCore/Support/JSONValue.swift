/// A JSON document as plain values, so that configuration can be checked key by key with the
/// JSON path of every value at hand (Codable's errors cannot name unknown keys or say what
/// range was expected).
enum JSONValue: Sendable, Equatable, Decodable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// How the value is described in messages: "a string", "the number 12", ...
    var summary: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string(let text): "the string \"\(text)\""
        case .integer(let value): "the number \(value)"
        case .number(let value): "the number \(value)"
        case .bool(let value): "\(value)"
        case .null: "null"
        }
    }
}
