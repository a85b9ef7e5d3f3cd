import Foundation
import LadderCore
import LadderImaging
import LadderManifest

/// `ladder html`: static markup for the images of a build, for pages without a script.
struct HTMLCommand: LadderCommand {
    static let name = "html"
    static let summary = "Print static <img>/<picture> markup for a build's images, or JSON for templates."
    static let synopsis =
        "[--config PATH | --manifest FILE] [--base URL] [--sizes SIZES] [--alt TEXT] [--class NAME] [--placeholder STYLE] [--loading MODE] [--json] [SHA1|SOURCE...]"
    static let discussion = """
        Prints, for each image given (by the SHA1 of its source or by a source path as the
        manifest lists it; every image of the manifest when none is given), an <img> whose srcset
        lists every rung with its width, with sizes, the width and height of the largest rung (so
        that nothing shifts while it loads), loading and decoding hints, and the placeholder as
        its background: the ThumbHash as a small PNG over the average colour. When the build wrote
        format siblings, the <img> is inside a <picture> with one <source> per format, smallest
        first, which the browser takes when it decodes that type. One image per line.

        With --json it prints one object for templates (as eleventy-img's metadata serves them):
        {"version", "images": {SHA1: {"sha1", "sources", "width", "height", "src", "srcset",
        "sizes", "picture": [{"type", "srcset"}], "placeholder": {"color", "image"}, "style",
        "rungs": [{"name", "width", "height", "url", "bytes", "formats"}], "html"}}, "sources":
        {SOURCE: SHA1}}. Everything from the manifest and the options is escaped for where it
        goes. URLs are --base followed by each variant's path.
        """
    static let options = [
        .config,
        OptionSpec(
            names: ["--manifest", "-m"], value: "FILE",
            help: "Read this manifest instead of the one pipeline.json names."),
        OptionSpec(
            names: ["--base"], value: "URL",
            help: "The URL the manifest's folder is served at (\"/photos/\", \"https://cdn.example.com/photos/\").",
            defaultText: "none: paths relative to the manifest's folder"),
        OptionSpec(
            names: ["--sizes"], value: "SIZES", help: "The sizes attribute: how wide the image is shown.",
            defaultText: "100vw"),
        OptionSpec(names: ["--alt"], value: "TEXT", help: "The alt text of the markup.", defaultText: "empty"),
        OptionSpec(names: ["--class"], value: "NAME", help: "A class attribute for the <img>."),
        OptionSpec(
            names: ["--placeholder"], value: "STYLE",
            help: "The background until the image loads: image (ThumbHash over the average colour), color, or none.",
            defaultText: "image"),
        OptionSpec(
            names: ["--loading"], value: "MODE", help: "The loading attribute: lazy, or eager for images in view.",
            defaultText: "lazy"),
        OptionSpec(names: ["--json"], help: "Print one JSON object for templates instead of markup."),
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "the markup of every image asked for was printed"),
        (.failure, "some images asked for are not in the manifest (the others are printed)"),
        (.usage, "unknown option or bad option value"),
        (.invalidConfiguration, "pipeline.json is invalid, or the manifest is not one ladder reads"),
        (.ioError, "the manifest cannot be read"),
    ]

    var configPath = "pipeline.json"
    var manifestPath: String?
    var settings = StaticMarkup.Settings()
    var json = false
    var selection: [String]

    init(parsing options: ParsedOptions) throws(UsageError) {
        selection = options.positional
        if let config = options.value("--config") { configPath = config }
        manifestPath = options.value("--manifest")
        if manifestPath != nil && options.value("--config") != nil {
            throw UsageError("give --config or --manifest, not both", command: Self.name)
        }
        settings.base = options.value("--base") ?? ""
        settings.sizes = options.value("--sizes") ?? settings.sizes
        settings.alt = options.value("--alt") ?? ""
        settings.className = options.value("--class")
        if let text = options.value("--placeholder") {
            guard let style = StaticMarkup.PlaceholderStyle(rawValue: text) else {
                throw UsageError("--placeholder expects image, color or none, not '\(text)'", command: Self.name)
            }
            settings.placeholder = style
        }
        if let text = options.value("--loading") {
            guard let loading = StaticMarkup.Loading(rawValue: text) else {
                throw UsageError("--loading expects lazy or eager, not '\(text)'", command: Self.name)
            }
            settings.loading = loading
        }
        json = options.has("--json")
        _ = try Verbosity(options, command: Self.name)
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        let path: String
        if let manifestPath {
            path = FilePath.join(FileManager.default.currentDirectoryPath, manifestPath)
            do {
                // The placeholder pictures are written by libvips.
                try Imaging.start(threadsPerImage: 1)
            } catch {
                console.error(error.description)
                return .ioError
            }
        } else {
            switch preparePipeline(configPath, console: console) {
            case .success(let configuration): path = configuration.manifestPath
            case .failure(let code): return code
            }
        }
        let manifest: Manifest
        do {
            manifest = try PublishedManifest.read(manifestAt: path)
        } catch {
            console.error(error.description)
            return error.kind == .unreadable ? .ioError : .invalidConfiguration
        }
        let (published, missing) = PublishedManifest.publish(
            manifest, selecting: selection, markup: StaticMarkup(settings: settings))
        for wanted in missing {
            console.error(
                "'\(wanted)' is not in \(displayPath(path)): neither the SHA1 of an image nor a source it lists")
        }
        if json {
            console.write(String(decoding: published.jsonData(), as: UTF8.self))
        } else {
            console.write(published.html)
        }
        return missing.isEmpty ? .success : .failure
    }
}
