/// The pictures an app shows while it walks one image's ladder over a network: it requests the
/// rungs one after another, smallest first, each once the previous has arrived, and replaces the
/// picture on screen whenever a better one can be shown.
package struct LadderTimeline: Sendable, Equatable {
    /// One rung: a variant file, and the moments it can be painted.
    package struct Rung: Sendable, Equatable, Codable {
        package struct Paint: Sendable, Equatable, Codable {
            /// The scan for progressive files, nil for a baseline file painted once complete.
            package var scan: Int?
            /// Bytes of the file received when the paint happens.
            package var offset: Int
            /// SSIM against the final full-size picture, when measured.
            package var ssim: Double?

            package init(scan: Int?, offset: Int, ssim: Double?) {
                self.scan = scan
                self.offset = offset
                self.ssim = ssim
            }
        }

        package var variant: String
        package var bytes: Int
        package var paints: [Paint]

        package init(variant: String, bytes: Int, paints: [Paint]) {
            self.variant = variant
            self.bytes = bytes
            self.paints = paints
        }
    }

    /// A picture that becomes available.
    package struct Event: Sendable, Equatable, Codable {
        package var variant: String
        package var scan: Int?
        /// Seconds after the first request.
        package var seconds: Double
        package var ssim: Double?
        /// False when the picture on screen was already better, so this one is not shown.
        package var shown: Bool
    }

    package var profile: NetworkProfile
    package var events: [Event]

    /// When the first picture of any rung shows.
    package var firstPictureSeconds: Double? { events.first { $0.shown }?.seconds }

    /// When the last rung is complete.
    package var completeSeconds: Double? { events.last?.seconds }

    /// Walks `rungs` in order over `profile`.
    package static func simulate(_ rungs: [Rung], over profile: NetworkProfile) -> LadderTimeline {
        var events: [Event] = []
        var requestedAt = 0.0
        var best: Double?
        for rung in rungs {
            for paint in rung.paints {
                let seconds = requestedAt + profile.seconds(toReceive: paint.offset)
                // Later rungs are larger; without a measure, each paint is taken to be better.
                let isBetter = paint.ssim.map { quality in best.map { quality > $0 } ?? true } ?? true
                events.append(
                    Event(
                        variant: rung.variant, scan: paint.scan, seconds: (seconds * 1000).rounded() / 1000,
                        ssim: paint.ssim, shown: isBetter))
                if isBetter, let quality = paint.ssim { best = quality }
            }
            requestedAt += profile.seconds(toReceive: rung.bytes)
        }
        return LadderTimeline(profile: profile, events: events)
    }
}
