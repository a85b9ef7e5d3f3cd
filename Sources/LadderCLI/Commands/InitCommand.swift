import Foundation
import LadderCore

/// `ladder init`: writes a starter pipeline.json for the folder's images.
struct InitCommand: LadderCommand {
    static let name = "init"
    static let summary = "Write a commented starter pipeline.json for the images in this folder."
    static let synopsis = "[--config PATH]"
    static let discussion = """
        Looks for the folders that hold images below the folder of the pipeline file (the
        current folder by default), skipping hidden folders, dependencies and build products,
        and writes a pipeline.json that builds them with the default variants, with "$comment"
        notes that say what each part does. It never overwrites an existing file.
        """
    static let options = [
        OptionSpec(
            names: ["--config", "-c"], value: "PATH", help: "Where to write the pipeline.",
            defaultText: "pipeline.json")
    ]
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "pipeline.json was written"),
        (.failure, "nothing was written: the file exists, or no images were found"),
        (.usage, "unknown option or bad option value"),
        (.ioError, "the folder cannot be read or the file cannot be written"),
    ]

    var configPath = "pipeline.json"
    var verbosity = Verbosity.normal

    init(parsing options: ParsedOptions) throws(UsageError) {
        if let first = options.positional.first {
            throw UsageError("unexpected argument '\(first)'", command: Self.name)
        }
        configPath = options.value("--config") ?? configPath
        verbosity = try Verbosity(options, command: Self.name)
    }

    func run(_ context: CommandContext) -> ExitCode {
        let console = context.console
        let path = FilePath.join(FileManager.default.currentDirectoryPath, configPath)
        let folder = FilePath.parent(path)
        if FileManager.default.fileExists(atPath: path) {
            console.error(
                "\(displayPath(path)) already exists; ladder init never overwrites it: edit it, or delete it and run ladder init again"
            )
            return .failure
        }
        let starter: StarterPipeline
        do {
            starter = try StarterPipeline.discover(in: folder)
        } catch {
            console.error(error.description)
            return .ioError
        }
        guard !starter.sources.isEmpty else {
            let extensions = ["jpg", "png", "webp", "heic", "tif", "gif"].map { "." + $0 }.joined(separator: ", ")
            console.error(
                "no images (\(extensions)...) below \(displayPath(folder)); put them in a folder (for example photos/) and run ladder init again"
            )
            return .failure
        }
        do {
            guard try Directory.open(folder).createAtomically(Array(starter.text.utf8), as: FilePath.name(path))
            else {
                console.error("\(displayPath(path)) appeared meanwhile; ladder init never overwrites it")
                return .failure
            }
        } catch {
            console.error(error.description)
            return .ioError
        }
        if verbosity != .quiet {
            console.print("wrote \(displayPath(path)) with \(starter.sources.count) source folder(s):")
            for source in starter.sources {
                console.print("  \(source.path)  (\(source.images) image\(source.images == 1 ? "" : "s"))")
            }
            let config = configPath == "pipeline.json" ? "" : " --config \(configPath)"
            console.print(
                "next: ladder check\(config), then ladder build\(config) (add build/ and .ladder/ to .gitignore)")

        }
        return .success
    }
}
