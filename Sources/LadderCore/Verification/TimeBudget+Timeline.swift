import Foundation

/// Time budgets checked against a simulated ladder timeline.
extension TimeBudget {
    /// What is wrong with `timeline` against the SSIM budget, or nil (also when the timeline
    /// carries no measured quality).
    func ssimProblem(_ timeline: LadderTimeline, profile: String, image: String) -> String? {
        guard let target = ssim, let limit = ssimSeconds, timeline.events.contains(where: { $0.ssim != nil }) else {
            return nil
        }
        let reached = timeline.events.first { $0.shown && ($0.ssim ?? 0) >= target }?.seconds
        if let reached, reached <= limit { return nil }
        let when =
            reached.map { "only after \(formatNumber(($0 * 100).rounded() / 100)) s" } ?? "never (only when complete)"
        return
            "on \(profile) \(image) shows a picture with SSIM \(formatNumber(target)) \(when), over the budget of \(formatNumber(limit)) s"
    }
}
