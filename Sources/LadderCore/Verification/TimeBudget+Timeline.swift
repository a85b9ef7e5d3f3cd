import Foundation

/// Time budgets checked against a simulated ladder timeline.
extension TimeBudget {
    /// What is wrong with `timeline` against the SSIM budget, or nil. A timeline whose pictures
    /// carry no measured quality cannot meet it (verify measures whenever an SSIM budget is set,
    /// so only pictures that cannot be decoded lack it).
    func ssimProblem(_ timeline: LadderTimeline, profile: String, image: String) -> String? {
        guard let target = ssim, let limit = ssimSeconds else { return nil }
        guard timeline.events.contains(where: { $0.ssim != nil }) else {
            return
                "on \(profile) no picture of \(image) could be measured against its final picture, so the budget of SSIM \(formatNumber(target)) within \(formatNumber(limit)) s cannot be met"
        }
        let reached = timeline.events.first { $0.shown && ($0.ssim ?? 0) >= target }?.seconds
        if let reached, reached <= limit { return nil }
        // Rounded up, so that a time over the budget never prints as the budget itself.
        let when =
            reached.map { "only after \(formatNumber(($0 * 100).rounded(.up) / 100)) s" }
            ?? "never (only when complete)"
        return
            "on \(profile) \(image) shows a picture with SSIM \(formatNumber(target)) \(when), over the budget of \(formatNumber(limit)) s"
    }
}
