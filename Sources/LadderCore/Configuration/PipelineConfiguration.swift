package import LadderImaging
package import LadderManifest

/// A validated pipeline.json: what to read, what to make of it and where to write it.
///
/// Paths are kept as written (relative to `baseDirectory`, the folder that holds pipeline.json)
/// and resolved with `resolve(_:)`.
package struct PipelineConfiguration: Sendable, Equatable {
    /// The pipeline.json format version this code reads.
    package static let highestSupportedVersion = 1

    package var version: Int
    /// The absolute folder that holds the configuration file.
    package var baseDirectory: String
    /// Folders walked recursively for sources.
    package var sources: [String]
    /// Which files under the sources are taken.
    package var include: SourceFilter
    /// Globs of files to leave out, relative to each source folder.
    package var exclude: [Glob]
    /// Where variant files are written.
    package var output: String
    /// Where the manifest is written; inside the output folder or one of its parents.
    package var manifest: String
    /// The variants made of every source, sorted by name.
    package var variants: [VariantRecipe]
    /// The color transparent pixels are flattened onto.
    package var background: RGBColor
    /// What metadata survives into the variants.
    package var metadata: MetadataPolicy
    /// How progressive loading is replayed, and the time budgets it must meet.
    package var replay: ReplaySettings
    /// What a source may be, checked before decoding, and how strictly it is decoded.
    package var limits: DecodeLimits
    /// Follow symbolic links in the source folders (only to files inside a source folder).
    package var followSymlinks: Bool

    package init(
        version: Int = 1, baseDirectory: String, sources: [String], include: SourceFilter = .imageExtensions,
        exclude: [Glob] = [], output: String = Defaults.output, manifest: String? = nil,
        variants: [VariantRecipe] = Defaults.variants, background: RGBColor = .white,
        metadata: MetadataPolicy = MetadataPolicy(), replay: ReplaySettings = ReplaySettings(),
        limits: DecodeLimits = DecodeLimits(), followSymlinks: Bool = false
    ) {
        self.version = version
        self.baseDirectory = baseDirectory
        self.sources = sources
        self.include = include
        self.exclude = exclude
        self.output = output
        self.manifest = manifest ?? Self.defaultManifest(output: output)
        self.variants = variants.sorted { $0.name < $1.name }
        self.background = background
        self.metadata = metadata
        self.replay = replay
        self.limits = limits
        self.followSymlinks = followSymlinks
    }

    /// An absolute path for a path written in the configuration.
    package func resolve(_ path: String) -> String {
        FilePath.join(baseDirectory, path)
    }

    /// The absolute output folder.
    package var outputDirectory: String { resolve(output) }

    /// The absolute manifest path.
    package var manifestPath: String { resolve(manifest) }

    /// The output folder's path relative to the manifest's folder ("" when they are the same),
    /// the prefix of every variant path in the manifest.
    package var outputPrefixInManifest: String {
        let manifestFolder = FilePath.parent(manifestPath)
        return FilePath.relative(outputDirectory, to: manifestFolder) ?? ""
    }
}

/// Which files under a source folder are taken as sources.
package enum SourceFilter: Sendable, Equatable {
    /// Files whose extension names an image format ladder reads, in any letter case.
    case imageExtensions
    /// Files matching any of these globs, relative to the source folder.
    case globs([Glob])

    /// The extensions `imageExtensions` takes.
    package static let extensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "mpo", "png", "apng", "webp", "gif", "tif", "tiff", "heic", "heif", "avif",
        "avifs",
    ]

    /// True when the file at `relativePath` (inside a source folder) is taken.
    package func matches(_ relativePath: String) -> Bool {
        switch self {
        case .imageExtensions:
            guard let dot = relativePath.lastIndex(of: "."), !relativePath[dot...].contains("/") else { return false }
            return Self.extensions.contains(relativePath[relativePath.index(after: dot)...].lowercased())
        case .globs(let globs):
            return globs.contains { $0.matches(relativePath) }
        }
    }
}

/// What metadata survives into the variants. Everything not kept is removed: GPS, the EXIF
/// thumbnail, maker notes, XMP, IPTC and ICC profiles (pixels are converted to sRGB first).
package struct MetadataPolicy: Sendable, Equatable {
    /// EXIF text tags copied from the source into every variant.
    package var keep: Set<ExifField>

    package init(keep: Set<ExifField> = []) { self.keep = keep }
}
