import LadderManifest

extension ManifestMerger {
    /// Merges `partials` in one read of their images, the usual case: each image is checked as
    /// `check` checks it (`scan`) and written at once. At the first thing a sound set of shards
    /// does not have (any problem, or a shard whose images are not in order), what was written
    /// is dropped and this returns nil; `check` then reads the shards again and tells every
    /// problem as before. Returns what was merged, and whether the manifest was replaced.
    static func mergeInOneRead(
        _ partials: [Partial], manifestPath: String, folder: Directory
    ) throws -> (plan: Plan, replaced: Bool)? {
        let (shards, problems) = checkTopLevels(partials, manifestPath: manifestPath)
        guard let reference = shards.first, problems.isEmpty else { return nil }
        var failures: [String: String] = [:]
        var failureSHA1: [String: String] = [:]
        for (partial, _) in shards {
            failures.merge(partial.header.failures) { first, _ in first }
            failureSHA1.merge(partial.header.failureSHA1 ?? [:]) { first, _ in first }
        }
        let header = mergedHeader(
            generator: reference.partial.header.generator, partials: partials, failures: failures,
            failureSHA1: failureSHA1)
        let imageCount = shards.reduce(0) { $0 + $1.partial.imageCount }
        let replaced = try write(header, imageCount: imageCount, into: folder, name: FilePath.name(manifestPath)) {
            try forEachCheckedImage(of: shards, $0)
        }
        guard let replaced else { return nil }
        let plan = Plan(header: header, shards: shards.map(\.partial), imageCount: imageCount, ordered: true)
        return (plan, replaced)
    }

    /// Hands over the images of `shards` (in order of their index, their top levels checked)
    /// in ascending order of SHA1, the shards' images interleaved as they are read, and returns
    /// true when every check held: each image reads as a manifest's does, is in the one shard
    /// that owns it, and comes after the shard's image before it; each source (the failures'
    /// too) is covered once, and the sources covered are those the shards found. Returns false
    /// at the first check that does not hold, or an image that cannot be read, handing over
    /// nothing more; the sources are checked once every image has passed. Only `body`'s errors
    /// are thrown.
    static func forEachCheckedImage(
        of shards: [(partial: Partial, shard: Manifest.Shard)], _ body: (String, Manifest.ImageEntry) throws -> Void
    ) throws -> Bool {
        guard let reference = shards.first else { return false }
        var owners: [Shard] = []
        for (_, shard) in shards {
            guard let owner = Shard(index: shard.index, count: shard.count) else { return false }
            owners.append(owner)
        }
        let readers: [ImageReader]
        do {
            readers = try shards.map { try $0.partial.images() }
        } catch {
            return false
        }
        func next(_ index: Int, after previous: String?) -> CheckedNext {
            checkedNext(readers[index], of: shards[index].partial, owner: owners[index], after: previous)
        }
        var heads: [(key: String, entry: Manifest.ImageEntry)?] = []
        for index in shards.indices {
            switch next(index, after: nil) {
            case .image(let sha1, let entry): heads.append((sha1, entry))
            case .end: heads.append(nil)
            case .wrong: return false
            }
        }
        var covered = SourceCoverage()
        var last: String?
        while let smallest = smallest(heads), let (sha1, entry) = heads[smallest] {
            // The same image in two shards comes out twice in a row.
            if sha1 == last { return false }
            for source in entry.sources { covered.add(source.utf8) }
            try body(sha1, entry)
            last = sha1
            switch next(smallest, after: sha1) {
            case .image(let sha1, let entry): heads[smallest] = (sha1, entry)
            case .end: heads[smallest] = nil
            case .wrong: return false
            }
        }
        for (partial, _) in shards {
            for source in partial.header.failures.keys { covered.add(source.utf8) }
        }
        // A source covered twice, or left out, is found here, once every image has passed.
        let list = covered.sortedList()
        return list.count == reference.shard.sources && list.sha1 == reference.shard.sourcesSHA1
    }

    /// What the next image of a shard is, in `forEachCheckedImage`.
    enum CheckedNext {
        case image(String, Manifest.ImageEntry)
        case end
        /// Unreadable, unsound, out of order, or in a shard that does not own it.
        case wrong
    }

    /// The next image `reader` hands over, read from `partial`, when it is sound, owned by
    /// `owner` and after `previous`.
    private static func checkedNext(
        _ reader: ImageReader, of partial: Partial, owner: Shard, after previous: String?
    ) -> CheckedNext {
        do {
            guard let (sha1, entry) = try reader.next() else { return .end }
            try validate(sha1, entry, in: partial)
            if let previous, previous >= sha1 { return .wrong }
            return owner.owns(sha1: sha1) ? .image(sha1, entry) : .wrong
        } catch {
            return .wrong
        }
    }
}
