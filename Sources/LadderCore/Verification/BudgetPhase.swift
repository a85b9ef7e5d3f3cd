import Foundation

/// The budget phase of `ladder verify`: each image's ladder is simulated on the network profiles
/// asked for and on those with a budget in pipeline.json (`LadderTimeline`), and held to the
/// budgets: the first picture, the complete full-size image, and a picture of a given SSIM,
/// each within its time. SSIM budgets are always measured: the replay phase measures quality
/// whenever one is set (`ReplayPhase.measuresQuality`).
struct BudgetPhase {
    let configuration: PipelineConfiguration
    let profiles: [String]

    /// The timelines of an image whose replay gave `rungs`, and the budgets they break.
    func check(
        _ key: String, source: String?, label: String, rungs: [LadderTimeline.Rung]
    ) -> (timelines: [LadderTimeline], problems: [VerificationProblem]) {
        var profileNames = profiles
        for name in configuration.replay.budgets.keys.sorted() where !profileNames.contains(name) {
            profileNames.append(name)
        }
        var timelines: [LadderTimeline] = []
        var problems: [VerificationProblem] = []
        func problem(_ message: String) {
            problems.append(VerificationProblem(path: label, kind: .budget, message: message, image: key))
        }
        for name in profileNames {
            guard let profile = configuration.replay.profile(named: name) else { continue }
            let timeline = LadderTimeline.simulate(rungs, over: profile)
            timelines.append(timeline)
            guard let budget = configuration.replay.budgets[name] else { continue }
            let who = source ?? key
            if let limit = budget.firstPictureSeconds, let first = timeline.firstPictureSeconds, first > limit {
                problem(
                    "on \(name) the first picture of \(who) shows after \(seconds(first, .up)), over the budget of \(seconds(limit, .down))"
                )
            }
            if let message = budget.ssimProblem(timeline, profile: name, image: who) { problem(message) }
            if let limit = budget.completeSeconds, let complete = timeline.completeSeconds, complete > limit {
                problem(
                    "on \(name) \(who) is complete after \(seconds(complete, .up)), over the budget of \(seconds(limit, .down))"
                )
            }
        }
        return (timelines, problems)
    }
}

/// `value` in seconds with two decimals, rounded in `direction`: a time over a budget is printed
/// rounded up and the budget rounded down, so that the one printed is above the other, as it is.
func seconds(_ value: Double, _ direction: FloatingPointRoundingRule) -> String {
    String(format: "%.2f s", (value * 100).rounded(direction) / 100)
}
