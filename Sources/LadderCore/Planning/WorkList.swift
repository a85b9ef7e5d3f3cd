package import LadderManifest

/// One source file as the plan sees it: its path and what hashing found.
package struct HashedSource: Sendable, Equatable {
    package enum Content: Sendable, Equatable {
        /// The SHA1 of its bytes.
        case sha1(String)
        /// It could not be read, for this reason.
        case unreadable(String)
    }

    package var path: String
    package var content: Content

    package init(path: String, content: Content) {
        self.path = path
        self.content = content
    }
}

/// What a build must do: the Plan phase's result, made from the walk, the hashes and the
/// previous manifest alone.
package struct WorkList: Sendable, Equatable {
    /// What to do with one distinct content.
    package enum Action: Sendable, Equatable {
        /// Every variant is there as the previous manifest says: its entry is kept.
        case upToDate(Manifest.ImageEntry)
        /// Some variants must be made (`render`), the others kept (`reuse`).
        case render(ImagePlan)
        /// It failed before with the same bytes, recipes and limits, for this reason.
        case knownFailure(String)
    }

    /// One distinct content this build makes.
    package struct Item: Sendable, Equatable {
        package var sha1: String
        /// The first source (by position in the walk) with these bytes: the one read to render.
        package var source: Int
        package var action: Action

        package init(sha1: String, source: Int, action: Action) {
            self.sha1 = sha1
            self.source = source
            self.action = action
        }
    }

    /// How one source file takes part.
    package enum Role: Sendable, Equatable {
        /// Its bytes are the item with this SHA1.
        case image(String)
        /// Another shard builds it (its SHA1, when known, is kept for the stat cache).
        case inOtherShard(sha1: String?)
        /// It could not be read.
        case unreadable(String)
    }

    /// One per distinct content, in the order of their first source.
    package var items: [Item]
    /// One per source file, in the order of the walk.
    package var roles: [Role]

    package init(items: [Item], roles: [Role]) {
        self.items = items
        self.roles = roles
    }

    /// Items with something to render.
    package var renderCount: Int {
        items.count(where: {
            if case .render = $0.action { return true }
            return false
        })
    }

    /// Items kept whole from the previous build.
    package var upToDateCount: Int {
        items.count(where: {
            if case .upToDate = $0.action { return true }
            return false
        })
    }

    /// Sources left to other shards.
    package var inOtherShardsCount: Int {
        roles.count(where: {
            if case .inOtherShard = $0 { return true }
            return false
        })
    }
}

extension Planner {
    /// The Plan phase: what every source needs, decided without reading a file or decoding an
    /// image. Sources with identical bytes make one item, claimed by the first of them.
    ///
    /// - Parameters:
    ///   - sources: every source found, in the order of the walk, with its hash.
    ///   - previous: the previous build's manifest, if any.
    ///   - fingerprints: the current recipe fingerprint of every variant, by name.
    ///   - owns: whether this build (the whole one, or a shard) makes the content with a SHA1.
    ///   - ownsUnreadable: whether this build reports an unreadable source at a path.
    ///   - knownFailure: why the content with a SHA1 failed before under the same recipes and
    ///     limits, if it did.
    ///   - fileIsPresent: whether a previously written variant file is still there as recorded.
    package static func plan(
        sources: [HashedSource], previous: Manifest?, fingerprints: [String: String],
        owns: (String) -> Bool = { _ in true }, ownsUnreadable: (String) -> Bool = { _ in true },
        knownFailure: (String) -> String? = { _ in nil },
        fileIsPresent: (Manifest.VariantEntry) -> Bool
    ) -> WorkList {
        var items: [WorkList.Item] = []
        var roles: [WorkList.Role] = []
        roles.reserveCapacity(sources.count)
        var claimed: Set<String> = []
        for (index, source) in sources.enumerated() {
            switch source.content {
            case .unreadable(let reason):
                roles.append(ownsUnreadable(source.path) ? .unreadable(reason) : .inOtherShard(sha1: nil))
            case .sha1(let sha1):
                guard owns(sha1) else {
                    roles.append(.inOtherShard(sha1: sha1))
                    continue
                }
                roles.append(.image(sha1))
                guard claimed.insert(sha1).inserted else { continue }  // the first path does the work
                let action: WorkList.Action
                if let reason = knownFailure(sha1) {
                    action = .knownFailure(reason)
                } else {
                    // An entry written before manifests had placeholders is made again, whole.
                    let entry = previous?.images[sha1].flatMap { $0.placeholder == nil ? nil : $0 }
                    let imagePlan = plan(previous: entry, fingerprints: fingerprints, fileIsPresent: fileIsPresent)
                    if imagePlan.isUpToDate, var entry {
                        entry.sources = []  // filled in from this walk
                        action = .upToDate(entry)
                    } else {
                        action = .render(imagePlan)
                    }
                }
                items.append(WorkList.Item(sha1: sha1, source: index, action: action))
            }
        }
        return WorkList(items: items, roles: roles)
    }
}
