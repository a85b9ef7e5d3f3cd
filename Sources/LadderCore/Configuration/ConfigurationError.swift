/// A pipeline.json that cannot be used: which file, which value (as a JSON path such as
/// `$.variants.full.quality`), and what was expected instead.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration file.
    public var file: String
    /// The JSON path of the offending value; "$" for the whole document.
    public var jsonPath: String
    public var message: String

    public init(file: String, jsonPath: String, message: String) {
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
    }

    public var description: String { "\(file): \(jsonPath): \(message)" }
}
