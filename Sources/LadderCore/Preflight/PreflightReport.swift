/// What `ladder check` found: for every source with something to say, what and how to fix it.
package struct PreflightReport: Sendable, Equatable {
    /// Sources looked at.
    package var sources: Int
    /// Sources with findings, sorted by path.
    package var files: [FileFindings]

    package var errorCount: Int { files.reduce(0) { $0 + $1.findings.count { $0.severity == .error } } }
    package var warningCount: Int { files.reduce(0) { $0 + $1.findings.count { $0.severity == .warning } } }
    package var infoCount: Int { files.reduce(0) { $0 + $1.findings.count { $0.severity == .info } } }

    /// The findings about one source.
    package struct FileFindings: Sendable, Equatable {
        package var path: String
        package var findings: [Finding]
    }
}

/// One thing a designer should know about a source.
package struct Finding: Sendable, Equatable {
    package enum Severity: String, Sendable, Comparable {
        /// The source cannot be built.
        case error
        /// It will be built, but not as its author may expect.
        case warning
        /// Nothing changes in the variants, but the original gives something away (personal
        /// data that the variants do not carry); `--strict` makes these warnings.
        case info

        /// Most severe first: error, warning, info.
        package static func < (left: Severity, right: Severity) -> Bool { left.rank < right.rank }

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            }
        }
    }

    /// What a finding is about, for machines (`--json`) and filters.
    package enum Kind: String, Sendable, CaseIterable {
        /// Cannot be read, is not an image, is damaged, or is over a limit.
        case unreadable, notAnImage = "not-an-image", unsupported, damaged, overLimits = "over-limits"

        /// Smaller than the largest variant (it will not be upscaled), or than every variant.
        case notUpscaled = "not-upscaled", tiny
        case cmyk
        case wideGamut = "wide-gamut"
        case gps
        case personalMetadata = "personal-metadata"
        case alpha
        case animated
        case duplicate
        case misnamed
        /// Passed over by the source walk (a link, a special file), or named so that it clashes.
        case skipped
        /// Given on the command line but outside every source folder: builds will not see it.
        case outsideSources = "outside-sources"
    }

    package var severity: Severity
    package var kind: Kind
    /// What is the matter, in plain words.
    package var message: String
    /// What to do about it.
    package var fix: String

    package init(_ severity: Severity, _ kind: Kind, _ message: String, fix: String) {
        self.severity = severity
        self.kind = kind
        self.message = message
        self.fix = fix
    }
}
