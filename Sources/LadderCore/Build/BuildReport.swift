/// What a build did.
public struct BuildReport: Sendable, Equatable {
    /// Source files found.
    public var sources: Int
    /// Distinct images whose variants were made in this run (all or some of them).
    public var built: Int
    /// Distinct images whose variants were all up to date.
    public var skipped: Int
    /// The share of the sources this build made, when it was one shard of a build.
    public var shard: Shard?
    /// Sources left to the other shards.
    public var inOtherShards: Int
    /// Sources that could not be built, with the reason, sorted by path.
    public var failed: [Failure]
    /// What the user should know about the sources: entries passed over (links, special files),
    /// names that clash on other systems, extensions that do not match the content.
    public var warnings: [SourceWarning]

    /// Sources read and hashed (the others were known unchanged from the stat cache).
    public var hashed: Int
    /// Variant files written.
    public var filesWritten: Int
    /// Stale variant files deleted.
    public var filesRemoved: Int
    /// True when the manifest was written (false when it was already up to date).
    public var manifestWritten: Bool
    public var manifestPath: String
    public var outputDirectory: String
    /// Wall time, in seconds.
    public var seconds: Double

    public struct Failure: Sendable, Equatable {
        public var source: String
        public var reason: String
    }
}

/// Hears about a build while it runs, for progress displays.
public protocol BuildObserving: Sendable {
    /// The sources are found; `total` of them will be processed.
    func buildStarted(total: Int)
    /// One source is done.
    func sourceFinished(_ path: String, outcome: SourceOutcome)
    /// Something the user should know that does not stop the build.
    func warning(_ message: String)
}

/// How one source ended.
public enum SourceOutcome: Sendable, Equatable {
    case built
    case upToDate
    case failed(String)
    /// Another shard of the build makes it.
    case inOtherShard

}
