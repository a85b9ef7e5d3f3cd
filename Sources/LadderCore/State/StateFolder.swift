/// The state folder, `.ladder/` beside pipeline.json, and the name of every file in it: what a
/// build remembers between runs and verify caches. Losing any of it costs only time. Files of a
/// shard carry its tag (`failures.shard-2-of-4`), so that shards of one build sharing the folder
/// never write each other's.
package enum StateFolder {
    /// The folder's name, beside pipeline.json.
    package static let name = ".ladder"

    /// The stat cache: the SHA1 of every source, kept while its file's identity is unchanged.
    static let statCache = "stat-cache"
    /// Replay results of `ladder verify` (a folder).
    static let replayCache = "replay-cache"
    /// Placeholder checks of `ladder verify` that held (a file).
    static let placeholderVerdicts = "placeholder-verdicts"

    /// What the last build found and wrote, for a no-op build to see that nothing changed.
    static func buildRecord(shard: Shard?) -> String { "build-record" + suffix(shard) }
    /// The previous manifest, as records that read faster than its JSON.
    static func manifestSnapshot(shard: Shard?) -> String { "manifest-snapshot" + suffix(shard) }
    /// The sources that failed, by content, recipes and limits.
    static func failures(shard: Shard?) -> String { "failures" + suffix(shard) }
    /// The variant files a running build is about to write, for the next build to own.
    static func pendingFiles(shard: Shard?) -> String { "pending" + suffix(shard) }
    /// The lock a shard holds while it builds.
    static func lock(shard: Shard) -> String { shard.tag + ".lock" }

    private static func suffix(_ shard: Shard?) -> String { shard.map { "." + $0.tag } ?? "" }

    /// The state folder of `configuration`'s pipeline.
    static func path(of configuration: PipelineConfiguration) -> String { configuration.resolve(name) }
}
