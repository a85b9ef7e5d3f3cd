import LadderCore
import LadderManifest
import Testing

@Suite("Planner")
struct PlannerTests {
    static func entry(_ recipe: String) -> Manifest.VariantEntry {
        Manifest.VariantEntry(
            path: "ab/x-\(recipe).jpg", width: 10, height: 10, bytes: 100, sha256: "", progressive: false, scans: 1,
            recipe: recipe)
    }

    static let previous = Manifest.ImageEntry(
        sources: ["a.jpg"], width: 10, height: 10, variants: ["full": entry("f1"), "small": entry("s1")])

    @Test("an unchanged source with its files present needs nothing")
    func upToDate() {
        let plan = Planner.plan(previous: Self.previous, fingerprints: ["full": "f1", "small": "s1"]) { _ in true }
        #expect(plan.isUpToDate)
        #expect(plan.reuse.keys.sorted() == ["full", "small"])
    }

    @Test("a changed recipe remakes only that variant")
    func changedRecipe() {
        let plan = Planner.plan(previous: Self.previous, fingerprints: ["full": "f2", "small": "s1"]) { _ in true }
        #expect(plan.render == ["full"])
        #expect(plan.reuse.keys.sorted() == ["small"])
    }

    @Test("a deleted variant file is made again")
    func missingFile() {
        let plan = Planner.plan(previous: Self.previous, fingerprints: ["full": "f1", "small": "s1"]) {
            $0.recipe != "s1"
        }
        #expect(plan.render == ["small"])
    }

    @Test("a new source, or a new variant, is made")
    func newWork() {
        #expect(
            Planner.plan(previous: nil, fingerprints: ["full": "f1", "small": "s1"]) { _ in true }.render == [
                "full", "small",
            ])
        let plan = Planner.plan(previous: Self.previous, fingerprints: ["full": "f1", "small": "s1", "large": "l1"]) {
            _ in true
        }
        #expect(plan.render == ["large"])
    }
}
