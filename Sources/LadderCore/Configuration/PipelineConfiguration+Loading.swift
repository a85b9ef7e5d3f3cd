package import Foundation
import LadderImaging
import LadderManifest

extension PipelineConfiguration {
    /// The top-level keys of pipeline.json version 1.
    static let knownKeys = [
        "version", "sources", "include", "exclude", "output", "manifest", "variants", "background", "metadata",
        "replay", "limits", "decoding", "followSymlinks",
    ]

    /// Reads and validates a pipeline.json. Every problem is reported with the file and the JSON
    /// path of the offending value, before any work is done.
    ///
    /// - Parameter path: the configuration file, absolute or relative to the working directory.
    package static func load(from path: String) throws(ConfigurationError) -> PipelineConfiguration {
        let absolute = FilePath.join(FileManager.default.currentDirectoryPath, path)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: absolute))
        } catch {
            let reason = FileManager.default.fileExists(atPath: absolute) ? "cannot be read" : "does not exist"
            throw ConfigurationError(
                file: path, jsonPath: "$",
                message: "the configuration file \(reason); write one with `ladder init`, or pass --config PATH")
        }
        return try parse(data, file: path, baseDirectory: FilePath.parent(absolute))
    }

    /// Parses and validates configuration JSON whose relative paths are relative to `baseDirectory`.
    package static func parse(
        _ data: Data, file: String, baseDirectory: String
    ) throws(ConfigurationError) -> PipelineConfiguration {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError(
                file: file, jsonPath: "$",
                message:
                    "not valid JSON: \(Self.describe(error, in: data)) (JSON allows no comments: write notes as \"$comment\" keys)"
            )
        }
        var reader = try ConfigurationReader(file: file, path: "$", value: document)

        let version = try reader.integer("version", in: 1...Int.max, default: 1)
        guard version <= highestSupportedVersion else {
            throw reader.error(
                "version",
                "version \(version) is newer than this ladder understands (up to \(highestSupportedVersion)); upgrade ladder"
            )
        }
        let sources = try reader.stringArray("sources", default: nil, allowEmpty: false)
        let include: SourceFilter
        if reader.has("include") {
            include = .globs(
                try globs(reader.stringArray("include", default: nil, allowEmpty: false), reader, "include"))
        } else {
            _ = reader.value("include")
            include = .imageExtensions
        }
        let exclude = try globs(reader.stringArray("exclude", default: []), reader, "exclude")
        let output = try reader.string("output", default: Defaults.output)
        let manifest = try reader.string("manifest", default: defaultManifest(output: output))
        var variants = try readVariants(&reader)
        let backgroundText = try reader.string("background", default: RGBColor.white.description)
        guard let background = RGBColor(backgroundText) else {
            throw reader.error("background", "expected a color written \"#rrggbb\", found \"\(backgroundText)\"")
        }
        var metadata = MetadataPolicy()
        if var metadataReader = try reader.reader("metadata") {
            let names = try metadataReader.stringArray("keep", default: [])
            for (index, name) in names.enumerated() {
                guard let field = ExifField(rawValue: name) else {
                    throw metadataReader.error(
                        nil,
                        "unknown EXIF field \"\(name)\" (ladder can keep: \(ExifField.allCases.map(\.rawValue).joined(separator: ", ")))"
                    ).at("\(metadataReader.path).keep[\(index)]")
                }
                metadata.keep.insert(field)
            }
            try metadataReader.finish(known: ["keep"])
        }
        var replay = try readReplay(&reader)
        if let rung = replay.firstRung, !variants.contains(where: { $0.name == rung }) {
            // The default names large_thumb; a pipeline without one shows the full variant alone.
            guard !replay.firstRungIsSet else {
                throw ConfigurationError(
                    file: file, jsonPath: "$.replay.firstRung",
                    message:
                        "no variant named \"\(rung)\" (variants: \(variants.map(\.name).sorted().joined(separator: ", ")); \"none\" for apps that show the full-size variant alone)"
                )
            }
            replay.firstRung = nil
        }
        // Scripts chosen per image are chosen for what the screen shows, within the replay budget.
        for index in variants.indices where variants[index].progressive?.automatic != nil {
            let rung = replay.firstRung == variants[index].name ? nil : replay.firstRung
            variants[index].progressive?.automatic = ProgressiveScripts.AutomaticScript(
                firstPictureBudget: replay.firstPaintBudget, budgetIsSet: replay.firstPaintBudgetIsSet,
                displayWidth: replay.displayWidth, firstRung: rung)
        }
        let limits = try readLimits(&reader)
        let followSymlinks = try reader.bool("followSymlinks", default: false)
        try reader.finish(known: knownKeys)

        let configuration = PipelineConfiguration(
            version: version, baseDirectory: baseDirectory, sources: sources, include: include, exclude: exclude,
            output: output, manifest: manifest, variants: variants, background: background, metadata: metadata,
            replay: replay, limits: limits, followSymlinks: followSymlinks)
        try configuration.checkFolders(file: file)
        try configuration.checkSourceLabels(file: file)
        return configuration
    }

    // MARK: - Parts

    private static func globs(
        _ patterns: [String], _ reader: ConfigurationReader, _ key: String
    ) throws(ConfigurationError) -> [Glob] {
        var globs: [Glob] = []
        for (index, pattern) in patterns.enumerated() {
            do {
                globs.append(try Glob(pattern))
            } catch {
                throw reader.error(nil, error.description).at("\(reader.path).\(key)[\(index)]")
            }
        }
        return globs
    }

    private static func readVariants(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> [VariantRecipe]
    {
        guard var variantsReader = try reader.reader("variants") else { return Defaults.variants }
        guard !variantsReader.keys.isEmpty else { throw reader.error("variants", "expected at least one variant") }
        var recipes: [VariantRecipe] = []
        for name in variantsReader.keys {
            guard name.utf8.count <= 64, !name.isEmpty,
                name.utf8.allSatisfy({ isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
            else {
                throw variantsReader.error(
                    name, "a variant name is 1 to 64 letters, digits, '_' or '-' (it becomes part of file names)")
            }
            guard var variant = try variantsReader.reader(name) else {
                throw variantsReader.error(name, "expected an object describing the variant")
            }
            recipes.append(try readVariant(name: name, &variant))
        }
        try variantsReader.finish(known: [])
        return recipes
    }

    private static func readVariant(
        name: String, _ reader: inout ConfigurationReader
    ) throws(ConfigurationError) -> VariantRecipe {
        // A variant named like a default one inherits what it leaves out from it.
        let base = Defaults.variants.first { $0.name == name }
        let maxWidth = try reader.integer("maxWidth", in: 1...65500, default: base?.maxWidth)
        let maxHeight = try reader.integer("maxHeight", in: 1...65500, default: base?.maxHeight)
        let quality = try reader.integer("quality", in: 1...100, default: base?.quality ?? 85)
        let chromaText = try reader.string("chroma", default: ChromaSubsampling.auto.rawValue)
        guard let chroma = ChromaSubsampling(rawValue: chromaText) else {
            throw reader.error(
                "chroma",
                "expected one of \(ChromaSubsampling.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(chromaText)\""
            )
        }
        let progressive: ProgressiveScripts?
        switch reader.value("progressive") {
        case nil where !reader.has("progressive") && base != nil:
            progressive = base?.progressive
        case nil, .bool(false):
            progressive = nil
        case .bool(true):
            progressive = .automatic(scans: ProgressiveScripts.recommended.scanCount)
        case let value?:
            var progressiveReader = try ConfigurationReader(
                file: reader.file, path: ConfigurationReader.child(reader.path, "progressive"), value: value)
            progressive = try readProgressive(&progressiveReader)
        }
        let formats = try readFormats(&reader, default: base?.formats ?? [])
        // Left out, the effort follows the variant's own box (`Defaults.avifEffort(boxPixels:)`).
        let avifEffort = reader.has("avifEffort") ? try reader.integer("avifEffort", in: 0...9, default: nil) : nil
        try reader.finish(known: ["maxWidth", "maxHeight", "quality", "chroma", "progressive", "formats", "avifEffort"])
        return VariantRecipe(
            name: name, maxWidth: maxWidth, maxHeight: maxHeight, quality: quality, chroma: chroma,
            progressive: progressive, formats: formats, avifEffort: avifEffort)
    }

    /// A variant's `formats`: the siblings written beside its JPEG rung, each named once.
    private static func readFormats(
        _ reader: inout ConfigurationReader, default fallback: [SiblingFormat]
    ) throws(ConfigurationError) -> [SiblingFormat] {
        guard reader.has("formats") else {
            _ = reader.value("formats")
            return fallback
        }
        let names = try reader.stringArray("formats", default: nil)
        var formats: [SiblingFormat] = []
        for (index, name) in names.enumerated() {
            let location = "\(ConfigurationReader.child(reader.path, "formats"))[\(index)]"
            guard let format = SiblingFormat(rawValue: name) else {
                let hint =
                    name.lowercased() == "jpeg" || name.lowercased() == "jpg" ? "; the JPEG is always written" : ""
                throw reader.error(
                    nil,
                    "unknown format \"\(name)\" (ladder writes siblings in: \(SiblingFormat.allCases.map(\.rawValue).joined(separator: ", "))\(hint))"
                ).at(location)
            }
            guard !formats.contains(format) else {
                throw reader.error(nil, "\"\(name)\" is listed twice").at(location)
            }
            formats.append(format)
        }
        return formats
    }

    private static func readProgressive(
        _ reader: inout ConfigurationReader
    ) throws(ConfigurationError) -> ProgressiveScripts {
        let scans: Int? =
            reader.has("scans") ? try reader.integer("scans", in: 1...ScanScript.maximumScans, default: nil) : nil
        _ = reader.value("scans")
        var color: ScanScript?
        var grayscale: ScanScript?
        if case .string(let text)? = reader.value("script") {
            guard text == "auto" else {
                throw reader.error(
                    "script",
                    "expected \"auto\" or an object {\"color\": ..., \"grayscale\": ...} of scan scripts, found \"\(text)\""
                )
            }
            try reader.finish(known: ["scans", "script"])
            return try automaticScripts(scans: scans ?? ProgressiveScripts.recommended.scanCount, reader)
        } else if var scriptReader = try reader.reader("script") {
            func script(
                _ key: String, components: Int, reader: inout ConfigurationReader
            ) throws(ConfigurationError) -> ScanScript? {
                guard reader.has(key) else { return nil }
                let text = try reader.string(key, default: nil)
                do {
                    let script = try ScanScript(parsing: text)
                    try script.validate(componentCount: components)
                    return script
                } catch {
                    throw reader.error(key, "illegal scan script: \(error)")
                }
            }
            color = try script("color", components: 3, reader: &scriptReader)
            grayscale = try script("grayscale", components: 1, reader: &scriptReader)
            try scriptReader.finish(known: ["color", "grayscale"])
        }
        try reader.finish(known: ["scans", "script"])
        if color == nil && grayscale == nil {
            return try automaticScripts(scans: scans ?? ProgressiveScripts.recommended.scanCount, reader)
        }

        let wanted = scans ?? color?.scans.count ?? grayscale?.scans.count ?? ProgressiveScripts.recommended.scanCount
        func pick(_ given: ScanScript?, _ builtIn: ScanScript, _ key: String) throws(ConfigurationError) -> ScanScript {
            if let given {
                guard given.scans.count == wanted else {
                    throw reader.error(
                        "script",
                        "script.\(key) has \(given.scans.count) scans but the variant asks for \(wanted); every file of a variant has the same number of scans"
                    )
                }
                return given
            }
            guard builtIn.scans.count == wanted else {
                throw reader.error(
                    "script",
                    "ladder has no built-in \(wanted)-scan \(key) script; give progressive.script.\(key) (jpegtran notation, e.g. \"\(key == "color" ? ScanScript.recommendedColor : ScanScript.recommendedGrayscale)\")"
                )
            }
            return builtIn
        }
        return ProgressiveScripts(
            color: try pick(color, .recommendedColor, "color"),
            grayscale: try pick(grayscale, .recommendedGrayscale, "grayscale"))
    }

    /// `"script": "auto"` (the default): a script chosen per image among `scans`-scan candidates.
    private static func automaticScripts(
        scans: Int, _ reader: ConfigurationReader
    ) throws(ConfigurationError) -> ProgressiveScripts {
        guard let scripts = ProgressiveScripts.automatic(scans: scans) else {
            throw reader.error(
                "scans",
                "\(scans) scans cannot carry a color image (its DC, luma and two chroma components need at least 4); ask for 4 or more, or give a fixed script"
            )
        }
        return scripts
    }

    private static func readReplay(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> ReplaySettings {
        guard var replayReader = try reader.reader("replay") else { return ReplaySettings() }
        var settings = ReplaySettings()
        settings.chunkBytes = try replayReader.integer("chunkBytes", in: 1...(1 << 30), default: settings.chunkBytes)
        settings.firstPaintBudgetIsSet = replayReader.has("firstPaintBudget")
        settings.firstPaintBudget = try replayReader.number(
            "firstPaintBudget", in: 0.001...1, default: settings.firstPaintBudget)
        settings.displayWidth = try replayReader.integer(
            "displayWidth", in: 16...65_535, default: settings.displayWidth)
        if replayReader.has("firstRung") {
            let rung = try replayReader.string("firstRung", default: nil)
            settings.firstRung = rung == "none" ? nil : rung
            settings.firstRungIsSet = true
        }
        if var profilesReader = try replayReader.reader("profiles") {
            for name in profilesReader.keys {
                guard var profile = try profilesReader.reader(name) else { continue }
                settings.profiles[name] = NetworkProfile(
                    name: name,
                    downlinkKilobitsPerSecond: try profile.number("downlinkKbps", in: 1...100_000_000, default: nil),
                    roundTripMilliseconds: try profile.number("rttMs", in: 0...60_000, default: nil))
                try profile.finish(known: ["downlinkKbps", "rttMs"])
            }
            try profilesReader.finish(known: [])
        }
        if var budgetsReader = try replayReader.reader("budgets") {
            for name in budgetsReader.keys {
                guard settings.profile(named: name) != nil else {
                    throw budgetsReader.error(
                        name,
                        "no network profile named \"\(name)\" (known: \(settings.profileNames.joined(separator: ", ")))"
                    )
                }
                guard var budget = try budgetsReader.reader(name) else { continue }
                let first =
                    budget.has("firstPictureSeconds")
                    ? try budget.number("firstPictureSeconds", in: 0.001...86_400, default: nil) : nil
                let complete =
                    budget.has("completeSeconds")
                    ? try budget.number("completeSeconds", in: 0.001...86_400, default: nil) : nil
                let ssim = budget.has("ssim") ? try budget.number("ssim", in: 0.01...1, default: nil) : nil
                let ssimSeconds =
                    budget.has("ssimSeconds") ? try budget.number("ssimSeconds", in: 0.001...86_400, default: nil) : nil
                guard (ssim == nil) == (ssimSeconds == nil) else {
                    throw budget.error(
                        ssim == nil ? "ssimSeconds" : "ssim",
                        "give \"ssim\" and \"ssimSeconds\" together: a picture at least that close to the final one within that time"
                    )
                }
                _ = budget.value("firstPictureSeconds")
                _ = budget.value("completeSeconds")
                _ = budget.value("ssim")
                _ = budget.value("ssimSeconds")
                try budget.finish(known: ["firstPictureSeconds", "completeSeconds", "ssim", "ssimSeconds"])
                settings.budgets[name] = TimeBudget(
                    firstPictureSeconds: first, completeSeconds: complete, ssim: ssim, ssimSeconds: ssimSeconds)
            }
            try budgetsReader.finish(known: [])
        }
        try replayReader.finish(known: [
            "chunkBytes", "firstPaintBudget", "displayWidth", "firstRung", "profiles", "budgets",
        ])
        return settings
    }

    private static func readLimits(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> DecodeLimits {
        var limits = DecodeLimits()
        if var limitsReader = try reader.reader("limits") {
            limits.maxPixels = try limitsReader.integer(
                "maxPixels", in: 1...Int(Int32.max) * 4, default: limits.maxPixels)
            limits.maxSide = try limitsReader.integer("maxSide", in: 1...10_000_000, default: limits.maxSide)
            limits.maxBands = try limitsReader.integer("maxBands", in: 1...64, default: limits.maxBands)
            limits.maxFileBytes = try limitsReader.integer(
                "maxFileBytes", in: 1...(1 << 40), default: limits.maxFileBytes)
            limits.maxScans = try limitsReader.integer("maxScans", in: 1...10_000, default: limits.maxScans)
            limits.timeoutSeconds = try limitsReader.number(
                "timeoutSeconds", in: 0.1...86_400, default: limits.timeoutSeconds)
            try limitsReader.finish(known: [
                "maxPixels", "maxSide", "maxBands", "maxFileBytes", "maxScans", "timeoutSeconds",
            ])
        }
        if var decodingReader = try reader.reader("decoding") {
            if decodingReader.has("formats") {
                let names = try decodingReader.stringArray("formats", default: nil, allowEmpty: false)
                var formats: Set<ImageFormat> = []
                for (index, name) in names.enumerated() {
                    guard let format = ImageFormat(rawValue: name) else {
                        throw decodingReader.error(
                            nil,
                            "unknown format \"\(name)\" (ladder reads: \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
                        ).at("\(decodingReader.path).formats[\(index)]")
                    }
                    formats.insert(format)
                }
                limits.formats = formats
            } else {
                _ = decodingReader.value("formats")
            }
            let failOn = try decodingReader.string("failOn", default: limits.failOn.rawValue)
            guard let strictness = DecodeStrictness(rawValue: failOn) else {
                throw decodingReader.error(
                    "failOn",
                    "expected one of \(DecodeStrictness.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(failOn)\""
                )
            }
            limits.failOn = strictness
            try decodingReader.finish(known: ["formats", "failOn"])
        }
        return limits
    }

    /// Checks the folders named in the configuration against each other and the disk.

    func checkFolders(file: String) throws(ConfigurationError) {
        let output = outputDirectory
        for (index, source) in sources.enumerated() {
            let folder = resolve(source)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ConfigurationError(
                    file: file, jsonPath: "$.sources[\(index)]",
                    message:
                        "folder \"\(source)\" does not exist; create it, or correct the path (relative to the folder of pipeline.json)"
                )
            }
            if FilePath.relative(folder, to: output) != nil {
                throw ConfigurationError(
                    file: file, jsonPath: "$.sources[\(index)]",
                    message:
                        "source folder \"\(source)\" lies inside the output folder \"\(self.output)\"; ladder deletes stale files there"
                )
            }
        }
        if FilePath.relative(output, to: FilePath.parent(manifestPath)) == nil {
            throw ConfigurationError(
                file: file, jsonPath: "$.manifest",
                message:
                    "the manifest must be in the output folder \"\(self.output)\" or one of its parents, so that variant paths stay relative without \"..\""
            )
        }
        if FilePath.relative(manifestPath, to: output) != nil, FilePath.parent(manifestPath) != output {
            throw ConfigurationError(
                file: file, jsonPath: "$.manifest",
                message:
                    "the manifest must sit directly in the output folder or in one of its parents, not in a subfolder of it"
            )
        }
    }

    /// Where and why `data` is not JSON. The decoder gives no position; the older parser names
    /// the character offset, which becomes a line and column.
    private static func describe(_ error: any Error, in data: Data) -> String {
        var reason = "\(error)"
        if case DecodingError.dataCorrupted(let context) = error { reason = context.debugDescription }
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? reason
            guard let range = detail.range(of: #"character (\d+)"#, options: .regularExpression),
                let offset = Int(detail[range].dropFirst("character ".count))
            else { return detail.hasPrefix("Unexpected end") ? detail + " Is a closing bracket missing?" : detail }
            let before = data.prefix(offset)
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return detail.replacingCharacters(in: range, with: "line \(line), column \(column)")
        }
        return reason
    }

}

private func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
}
