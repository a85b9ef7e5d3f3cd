import Foundation
import LadderCLI
import LadderCore
import LadderImaging
import Testing

/// The first-picture budget as a build reports it: the default is the build's own aim, and only
/// a budget pipeline.json sets is the user's to hear about.
@Suite("First-picture budget in a build")
struct FirstPictureBudgetTests {
    /// A noisy photo-like picture: its detail is in the high frequencies, so no 5-scan script
    /// shows a picture better than large_thumb within the first few percent of its file.
    static func noisyPhoto() throws -> [UInt8] {
        try ProgressiveSubjects.noisyPhoto(width: 1600, height: 1200)
            .jpegEncoded(JPEGEncoding(quality: 92, fullChroma: false))
    }

    @Test(
        "a default build says nothing about the budget; a budget pipeline.json sets out of reach is named with what meets it"
    )
    func warnsOnlyForASetBudget() throws {
        TestImages.start()
        let folder = TemporaryDirectory()
        try folder.write(try Self.noisyPhoto(), to: "photos/noisy.jpg")
        try folder.write(#"{"sources": ["photos"]}"#, to: "pipeline.json")
        let plain = runLadder(["build", "--config", folder.path("pipeline.json")])
        #expect(plain.code == .success, "\(plain.error)")
        #expect(!plain.error.contains("budget"), "the default budget is not the user's: \(plain.error)")

        // The same photo under a budget of 2 % of the file, which its picture cannot meet: its
        // full-size file is well over the first round trip (a picture within it meets any budget).
        try folder.write(#"{"sources": ["photos"], "replay": {"firstPaintBudget": 0.02}}"#, to: "pipeline.json")
        let strict = runLadder(["build", "--config", folder.path("pipeline.json")])
        #expect(strict.code == .success, "a budget out of reach is a warning, not a failure: \(strict.error)")
        let warning = try #require(
            strict.error.split(separator: "\n").first { $0.contains("within 2 %") }, "\(strict.error)")
        #expect(warning.contains("photos/noisy.jpg"), "names the image")
        #expect(warning.contains("better than large_thumb"), "in the terms of what the screen shows")
        #expect(warning.contains("first-picture budget of"), "says what budget would be met")
        #expect(warning.contains("replay.firstPaintBudget"), "names the setting")

        // A budget pipeline.json sets that the picture meets: nothing to say.
        try folder.write(#"{"sources": ["photos"], "replay": {"firstPaintBudget": 0.9}}"#, to: "pipeline.json")
        let met = runLadder(["build", "--config", folder.path("pipeline.json")])
        #expect(met.code == .success, "\(met.error)")
        #expect(!met.error.contains("budget"), "\(met.error)")
    }
}
