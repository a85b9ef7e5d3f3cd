extension PipelineConfiguration {
    /// How the manifest (its `sources` and `failures`) names the files of a source folder: the
    /// folder's path relative to pipeline.json's folder when it lies inside it ("photos",
    /// "art/2024"), and otherwise, for `..` or an absolute path outside it, the folder's own name
    /// ("../shared/photos" and "/srv/photos" are both "photos"). A manifest path is thus never
    /// absolute and never climbs with "..", and does not depend on where the checkout lives.
    /// Two source folders with the same name are refused when the configuration is loaded.
    package func sourceLabel(_ source: String) -> String {
        let absolute = resolve(source)
        if let inside = FilePath.relative(absolute, to: baseDirectory) {
            return inside.isEmpty ? "." : inside
        }
        return FilePath.name(absolute)
    }

    /// Refuses source folders that the manifest could not tell apart, or not name at all.
    func checkSourceLabels(file: String) throws(ConfigurationError) {
        var seen: [String: Int] = [:]
        for (index, source) in sources.enumerated() {
            let label = sourceLabel(source)
            guard !label.isEmpty, label != "..", label != "/" else {
                throw ConfigurationError(
                    file: file, jsonPath: "$.sources[\(index)]",
                    message: "source folder \"\(source)\" has no name the manifest can use; name a folder below it")
            }
            if let first = seen[label], sourceLabel(sources[first]) == label, resolve(sources[first]) != resolve(source)
            {
                throw ConfigurationError(
                    file: file, jsonPath: "$.sources[\(index)]",
                    message:
                        "source folders \"\(sources[first])\" and \"\(source)\" would both be named \"\(label)\" in the manifest (a folder outside the folder of pipeline.json is named by its last segment); rename one"
                )
            }
            seen[label] = seen[label] ?? index
        }
    }
}
