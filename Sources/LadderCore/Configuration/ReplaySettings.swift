/// How `ladder verify --replay` and `ladder replay` load files, and the budgets they enforce.
package struct ReplaySettings: Sendable, Equatable {
    /// Bytes delivered at a time.
    package var chunkBytes: Int
    /// The share of a full-size file after which its picture must replace what is on screen:
    /// be closer to the final picture than `firstRung` (`ScreenQuality`), or, without a first
    /// rung, show at all; unless that happens within `firstRoundTripBytes`.
    package var firstPaintBudget: Double
    /// True when pipeline.json set `firstPaintBudget`: the build then warns when no script can
    /// meet it.
    package var firstPaintBudgetIsSet: Bool
    /// The width of the view an app shows the full-size picture in; pictures are compared at
    /// that size (`ScreenQuality`).
    package var displayWidth: Int
    /// The variant an app shows before the full-size one, stretched to the view, until a scan
    /// of the full-size file is closer to the final picture; nil for apps that show the
    /// full-size variant alone.
    package var firstRung: String?
    /// True when pipeline.json named `firstRung` (an unknown name is then an error; the default
    /// falls back to none in a pipeline without large_thumb).
    package var firstRungIsSet = false
    /// Network profiles defined in pipeline.json, by name, besides the built-in ones.
    package var profiles: [String: NetworkProfile]
    /// Time budgets by profile name; an image over budget fails verify.
    package var budgets: [String: TimeBudget]

    package init(
        chunkBytes: Int = Defaults.chunkBytes, firstPaintBudget: Double = Defaults.firstPaintBudget,
        firstPaintBudgetIsSet: Bool = false, displayWidth: Int = Defaults.displayWidth,
        firstRung: String? = Defaults.firstRung, profiles: [String: NetworkProfile] = [:],
        budgets: [String: TimeBudget] = [:]
    ) {
        self.chunkBytes = chunkBytes
        self.firstPaintBudget = firstPaintBudget
        self.firstPaintBudgetIsSet = firstPaintBudgetIsSet
        self.displayWidth = displayWidth
        self.firstRung = firstRung
        self.profiles = profiles
        self.budgets = budgets
    }

    /// A first picture that can show within this many bytes passes `firstPaintBudget` whatever
    /// its share of the file: they arrive in the first round trip of a new connection (TCP's
    /// initial window of 10 segments of 1460 bytes, RFC 6928), so it shows as early as any
    /// picture can. It matters for small files, where headers and the DC are most of the bytes.
    package static let firstRoundTripBytes = 14_600

    /// The profile called `name`: one defined in pipeline.json, else a built-in one.
    package func profile(named name: String) -> NetworkProfile? {
        profiles[name] ?? NetworkProfile.builtIn.first { $0.name == name }
    }

    /// Every profile name known: built-in and defined.
    package var profileNames: [String] {
        (NetworkProfile.builtIn.map(\.name) + profiles.keys.sorted()).reduce(into: []) { names, name in
            if !names.contains(name) { names.append(name) }
        }
    }
}

/// A network an app loads images over: its downlink bandwidth and round-trip time.
package struct NetworkProfile: Sendable, Equatable {
    package var name: String
    package var downlinkKilobitsPerSecond: Double
    package var roundTripMilliseconds: Double

    package init(name: String, downlinkKilobitsPerSecond: Double, roundTripMilliseconds: Double) {
        self.name = name
        self.downlinkKilobitsPerSecond = downlinkKilobitsPerSecond
        self.roundTripMilliseconds = roundTripMilliseconds
    }

    /// The built-in profiles: slow 2G as browsers classify it, WebPageTest's 2G and 4G, and 3G
    /// as Lighthouse throttles it.
    package static let builtIn = [
        NetworkProfile(name: "slow-2g", downlinkKilobitsPerSecond: 50, roundTripMilliseconds: 2000),
        NetworkProfile(name: "2g", downlinkKilobitsPerSecond: 280, roundTripMilliseconds: 800),
        NetworkProfile(name: "3g", downlinkKilobitsPerSecond: 1600, roundTripMilliseconds: 300),
        NetworkProfile(name: "4g", downlinkKilobitsPerSecond: 9000, roundTripMilliseconds: 170),
    ]

    /// Seconds from a request to the moment `bytes` of the response have arrived: one round
    /// trip, then the bytes at the downlink rate.
    package func seconds(toReceive bytes: Int) -> Double {
        roundTripMilliseconds / 1000 + Double(bytes) * 8 / (downlinkKilobitsPerSecond * 1000)
    }

    package var summary: String {
        let rate =
            downlinkKilobitsPerSecond >= 1000
            ? "\(formatNumber(downlinkKilobitsPerSecond / 1000)) Mbit/s"
            : "\(formatNumber(downlinkKilobitsPerSecond)) kbit/s"
        return "\(name): \(rate), \(formatNumber(roundTripMilliseconds)) ms round trip"
    }
}

/// Time limits for one image's ladder on a network profile.
package struct TimeBudget: Sendable, Equatable {
    /// The first picture of the ladder (whatever rung) must show within this time.
    package var firstPictureSeconds: Double?
    /// The full-size image must be complete within this time.
    package var completeSeconds: Double?
    /// A picture at least this close to the final one (SSIM on luma) must show within
    /// `ssimSeconds`: "SSIM 0.95 within 3 s". Checked by `ladder verify --replay`, which measures.
    package var ssim: Double?
    package var ssimSeconds: Double?

    package init(
        firstPictureSeconds: Double? = nil, completeSeconds: Double? = nil, ssim: Double? = nil,
        ssimSeconds: Double? = nil
    ) {
        self.firstPictureSeconds = firstPictureSeconds
        self.completeSeconds = completeSeconds
        self.ssim = ssim
        self.ssimSeconds = ssimSeconds
    }
}

func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
