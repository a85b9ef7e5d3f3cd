/// A pipeline.json that cannot be used: which file, which value (as a JSON path such as
/// `$.variants.full.quality`), and what was expected instead.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration file.
    package var file: String
    /// The JSON path of the offending value; "$" for the whole document.
    package var jsonPath: String
    package var message: String

    package init(file: String, jsonPath: String, message: String) {
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
    }

    package var description: String { "\(file): \(jsonPath): \(message)" }
}
