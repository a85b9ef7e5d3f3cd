package import LadderImaging

/// What a build did.
package struct BuildReport: Sendable, Equatable {
    /// Source files found.
    package var sources: Int
    /// Distinct images whose variants were made in this run (all or some of them).
    package var built: Int
    /// Distinct images whose variants were all up to date.
    package var skipped: Int
    /// The share of the sources this build made, when it was one shard of a build.
    package var shard: Shard?
    /// Sources left to the other shards.
    package var inOtherShards: Int
    /// Sources that could not be built, with the reason, sorted by path.
    package var failed: [Failure]
    /// What the user should know about the sources: entries passed over (links, special files),
    /// names that clash on other systems, extensions that do not match the content.
    package var warnings: [SourceWarning]

    /// Sources read and hashed (the others were known unchanged from the stat cache).
    package var hashed: Int
    /// Variant files written, format siblings included.
    package var filesWritten: Int
    /// Format siblings written, by format.
    package var siblingsWritten: [SiblingFormat: Int] = [:]
    /// Format siblings not written because they were not smaller than their JPEG rung at equal quality, by
    /// format.
    package var siblingsSkipped: [SiblingFormat: Int] = [:]
    /// Stale variant files deleted.
    package var filesRemoved: Int
    /// True when the manifest was written (false when it was already up to date).
    package var manifestWritten: Bool
    package var manifestPath: String
    package var outputDirectory: String
    /// Wall time, in seconds.
    package var seconds: Double
    /// True when the build record showed that nothing changed since the last build, so that
    /// the build ended after the walk (docs/BUILDS.md, "Incremental builds").
    package var unchanged = false
    /// Made from the sources that changed since the build record (`Builder.runChanges`), not
    /// from the whole previous manifest.
    package var fromChanges = false

    package struct Failure: Sendable, Equatable {
        package var source: String
        package var reason: String
    }
}

/// Hears about a build while it runs, for progress displays.
package protocol BuildObserving: Sendable {
    /// The sources are found; `total` of them will be processed.
    func buildStarted(total: Int)
    /// One source is done.
    func sourceFinished(_ path: String, outcome: SourceOutcome)
    /// Something the user should know that does not stop the build.
    func warning(_ message: String)
}

/// How one source ended.
package enum SourceOutcome: Sendable, Equatable {
    case built
    case upToDate
    case failed(String)
    /// Another shard of the build makes it.
    case inOtherShard

}
