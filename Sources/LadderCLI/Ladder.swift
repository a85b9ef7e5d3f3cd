import Foundation
import LadderCore
import LadderImaging

/// Where sources are decoded and encoded: always in worker processes started from a ladder
/// executable, so that decoder crashes and runaway decodes cost only the source at hand, and
/// every source is rendered under the same time limit and loader settings.
package struct Rendering: Sendable {
    /// The ladder executable that workers are started from.
    package var executable: String
    /// Worker processes at most; nil for one per job.
    package var workers: Int?

    package init(executable: String, workers: Int? = nil) {
        self.executable = executable
        self.workers = workers
    }

    /// The worker pool for `jobs` sources at once, to shut down when done. No worker starts
    /// until the build or check sees work for it (`WorkerPool.prepare()`).
    func workerPool(limits: DecodeLimits, jobs: Int) -> WorkerPool {
        WorkerPool(settings: WorkerPool.Settings(for: limits, executable: executable, workers: workers ?? jobs))
    }

    /// Worker processes started from the running executable, one per job.
    package static var thisExecutable: Rendering {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return Rendering(executable: path)
    }
}

/// The command-line entry point: `run(arguments:console:rendering:)` is all the executable
/// calls, and what tests call (with workers started from the built executable).
package enum Ladder {
    /// Every command, in the order `ladder --help` lists them (internal ones are not listed).
    static let commands: [any LadderCommand.Type] = [
        InitCommand.self, CheckCommand.self, BuildCommand.self, VerifyCommand.self, ReplayCommand.self,
        MergeCommand.self, HTMLCommand.self, RenderWorkerCommand.self,
    ]

    /// Runs ladder with `arguments` (the first being the program name, as in CommandLine.arguments)
    /// and `environment` (nil for this process's). A result that could not be written to
    /// standard output makes it exit 74, whatever the command found.
    package static func run(
        arguments: [String], console: Console = .standard(), rendering: Rendering,
        environment: [String: String]? = nil
    ) -> ExitCode {
        let code = dispatch(arguments: arguments, console: console, rendering: rendering, environment: environment)
        if let failure = console.outputFailure {
            console.error("cannot write the results to standard output: \(failure)")
            return .ioError
        }
        return code
    }

    private static func dispatch(
        arguments: [String], console: Console, rendering: Rendering, environment: [String: String]?
    ) -> ExitCode {
        let rest = Array(arguments.dropFirst())
        guard let first = rest.first else {
            console.write(help)
            return .usage
        }
        switch first {
        case "--help", "-h", "help":
            if let topic = rest.dropFirst().first {
                guard let command = commands.first(where: { $0.name == topic }) else {
                    return usageFailure(UsageError("unknown command '\(topic)'", command: nil), console: console)
                }
                console.write(command.help)
            } else {
                console.write(help)
            }
            return .success
        case "--version":
            console.write(versionText)
            return .success
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let message = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            return usageFailure(UsageError(message, command: nil), console: console)
        }
        let commandArguments = rest.dropFirst()
        if commandArguments.contains("--help") || commandArguments.contains("-h") {
            console.write(command.help)
            return .success
        }
        do {
            let parsed = try ParsedOptions(
                commandArguments, specs: command.acceptedOptions, command: command.name)
            let context = CommandContext(
                console: console, rendering: rendering,
                environment: environment ?? ProcessInfo.processInfo.environment)

            return try command.init(parsing: parsed).run(context)

        } catch {
            return usageFailure(error, console: console)
        }
    }

    private static func usageFailure(_ error: UsageError, console: Console) -> ExitCode {
        console.error(error.description)
        return .usage
    }

    static var help: String {
        var text = """
            ladder makes the resolution variants that apps load progressively: for every image under
            the source folders of pipeline.json, a small thumbnail, a large thumbnail and a full-size
            progressive JPEG with an exact number of scans, plus a manifest keyed by each source's SHA1.

            USAGE: ladder <command> [options]

            COMMANDS:

            """
        let listed = commands.filter { !$0.isInternal }
        let width = (listed.map { $0.name.count }.max() ?? 0) + 2
        for command in listed {
            text += "  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        text += """

            OPTIONS:
              --help, -h  Show this help; 'ladder <command> --help' shows a command's options.
              --version   Show the versions of ladder and of the image libraries.

            """
        return text
    }

    static var versionText: String {
        let versions = Imaging.versions
        return """
            ladder \(LadderVersion.current)
            libvips \(versions.libvips)
            libjpeg-turbo \(versions.libjpeg)
            libexif \(versions.libexif)

            """
    }
}
