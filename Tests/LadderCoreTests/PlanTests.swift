import LadderCore
import LadderManifest
import Testing

/// The Plan phase alone: hashes and a previous manifest in, a work list out. No file is read
/// and no image decoded: these tests never start libvips.
@Suite("Plan")
struct PlanTests {
    static let fingerprints = ["full": "f1", "small_thumb": "s1"]

    static func sha1(_ digit: Character) -> String { String(repeating: digit, count: 40) }

    static func variant(_ name: String, recipe: String) -> Manifest.VariantEntry {
        Manifest.VariantEntry(
            path: "aa/\(name).jpg", width: 10, height: 10, bytes: 100, sha256: String(repeating: "0", count: 64),
            progressive: false, scans: 1, recipe: recipe)
    }

    static func previous(
        _ sha1: String, recipes: [String: String], placeholder: String? = "1QcSHQRnh493V4dIh4eXh1h4kJUI"
    )
        -> Manifest
    {
        let entry = Manifest.ImageEntry(
            sources: ["old/path.jpg"], width: 10, height: 10,
            variants: Dictionary(uniqueKeysWithValues: recipes.map { ($0.key, variant($0.key, recipe: $0.value)) }),
            placeholder: placeholder, averageColor: placeholder == nil ? nil : "#808080", hasAlpha: false)
        return Manifest(generator: Manifest.Generator(ladder: "t", libvips: "t", libjpeg: "t"), images: [sha1: entry])
    }

    @Test("a content whose variants are all there with current recipes is up to date, its sources left to the walk")
    func upToDate() {
        let a = Self.sha1("a")
        let work = Planner.plan(
            sources: [HashedSource(path: "p/a.jpg", content: .sha1(a))],
            previous: Self.previous(a, recipes: Self.fingerprints), fingerprints: Self.fingerprints,
            fileIsPresent: { _ in true })
        #expect(work.roles == [.image(a)])
        #expect(work.items.count == 1)
        guard case .upToDate(let entry)? = work.items.first?.action else {
            Issue.record("expected up to date: \(work.items)")
            return
        }
        #expect(entry.sources.isEmpty && entry.variants.count == 2)
        #expect(work.renderCount == 0)
    }

    @Test("an entry written before manifests had placeholders is made again, whole")
    func entryWithoutPlaceholder() {
        let a = Self.sha1("a")
        let work = Planner.plan(
            sources: [HashedSource(path: "p/a.jpg", content: .sha1(a))],
            previous: Self.previous(a, recipes: Self.fingerprints, placeholder: nil), fingerprints: Self.fingerprints,
            fileIsPresent: { _ in true })
        guard case .render(let plan)? = work.items.first?.action else {
            Issue.record("expected a render: \(work.items)")
            return
        }
        #expect(plan.render == Self.fingerprints.keys.sorted())
        #expect(plan.reuse.isEmpty)
    }

    @Test("a changed recipe or a missing file renders only those variants and keeps the rest")
    func partialRender() {
        let a = Self.sha1("a")
        let previous = Self.previous(a, recipes: ["full": "f0", "small_thumb": "s1"])
        let work = Planner.plan(
            sources: [HashedSource(path: "p/a.jpg", content: .sha1(a))], previous: previous,
            fingerprints: Self.fingerprints, fileIsPresent: { _ in true })
        guard case .render(let plan)? = work.items.first?.action else {
            Issue.record("expected a render: \(work.items)")
            return
        }
        #expect(plan.render == ["full"])
        #expect(plan.reuse.keys.sorted() == ["small_thumb"])
        let missing = Planner.plan(
            sources: [HashedSource(path: "p/a.jpg", content: .sha1(a))],
            previous: Self.previous(a, recipes: Self.fingerprints), fingerprints: Self.fingerprints,
            fileIsPresent: { $0.path != "aa/small_thumb.jpg" })
        let expected = ImagePlan(reuse: ["full": Self.variant("full", recipe: "f1")], render: ["small_thumb"])
        #expect(missing.items.first?.action == .render(expected))
    }

    @Test("identical bytes under two paths make one item, claimed by the first path in the walk")
    func duplicates() {
        let a = Self.sha1("a")
        let b = Self.sha1("b")
        let work = Planner.plan(
            sources: [
                HashedSource(path: "p/1.jpg", content: .sha1(b)), HashedSource(path: "p/2.jpg", content: .sha1(a)),
                HashedSource(path: "p/3.jpg", content: .sha1(b)),
            ], previous: nil, fingerprints: Self.fingerprints, fileIsPresent: { _ in false })
        #expect(work.items.map(\.sha1) == [b, a])
        #expect(work.items.map(\.source) == [0, 1])
        #expect(work.roles == [.image(b), .image(a), .image(b)])
        #expect(work.renderCount == 2)
    }

    @Test("a failure remembered for these bytes is not tried again; unreadable sources are reported as such")
    func failures() {
        let a = Self.sha1("a")
        let b = Self.sha1("b")
        let work = Planner.plan(
            sources: [
                HashedSource(path: "p/a.jpg", content: .sha1(a)), HashedSource(path: "p/b.jpg", content: .sha1(b)),
                HashedSource(path: "p/c.jpg", content: .unreadable("permission denied")),
            ], previous: nil, fingerprints: Self.fingerprints, knownFailure: { $0 == a ? "truncated" : nil },
            fileIsPresent: { _ in false })
        #expect(work.items.map(\.action).first == .knownFailure("truncated"))
        #expect(work.renderCount == 1)
        #expect(work.roles[2] == .unreadable("permission denied"))
    }

    @Test("a shard plans only the contents it owns, and leaves the rest to the others")
    func ownership() {
        let a = Self.sha1("a")
        let b = Self.sha1("b")
        let work = Planner.plan(
            sources: [
                HashedSource(path: "p/a.jpg", content: .sha1(a)), HashedSource(path: "p/b.jpg", content: .sha1(b)),
                HashedSource(path: "p/c.jpg", content: .unreadable("gone")),
            ], previous: nil, fingerprints: Self.fingerprints, owns: { $0 == a }, ownsUnreadable: { _ in false },
            fileIsPresent: { _ in false })
        #expect(work.items.map(\.sha1) == [a])
        #expect(work.roles == [.image(a), .inOtherShard(sha1: b), .inOtherShard(sha1: nil)])
    }
}
