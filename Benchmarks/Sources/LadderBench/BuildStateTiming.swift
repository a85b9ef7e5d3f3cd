import Foundation
import LadderCore
import LadderManifest

/// Times what a no-op build reads from the hand-made build state (`.ladder/`): the stat cache
/// and the previous manifest (from its snapshot while it matches the manifest's bytes), as
/// `BuildStateStore` reads them. For scripts/bench-store, which compares that with SQLite.
enum BuildStateTiming {
    /// What one load found, and how long it took.
    struct Load: Sendable {
        var statEntries: Int
        var images: Int
        var fromSnapshot: Bool
        /// Wall time.
        var seconds: Double
        /// CPU time of this process (all its threads) while loading.
        var cpuSeconds: Double
    }

    /// CPU time of this process so far.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Loads the build state of the whole build of `configuration` once.
    static func load(_ configuration: PipelineConfiguration) throws -> Load {
        let scope = BuildScope(configuration: configuration, shard: nil)
        let started = ContinuousClock.now
        let cpuStarted = processCPUSeconds()
        let store = BuildStateStore(scope: scope, observer: nil)
        let manifestFolder = try Directory.open(FilePath.parent(scope.manifestPath))
        let (previous, fromSnapshot) = store.previousManifest(in: manifestFolder)
        let cache = store.statCache()
        let elapsed = ContinuousClock.now - started
        let cpu = processCPUSeconds() - cpuStarted
        return Load(
            statEntries: cache.count, images: previous?.images.count ?? 0, fromSnapshot: fromSnapshot,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpuSeconds: cpu)
    }
}
