import LadderCore

/// `ladder __render-worker`: a render worker process, which `ladder build` and `ladder check`
/// start from their own executable (see `RenderWorker`). It reads requests on standard input
/// and answers on standard output until the input closes; it is not for people to run.
struct RenderWorkerCommand: LadderCommand {
    static let name = RenderWorker.subcommand
    static let summary = "Render sources for a build or check that started this process."
    static let synopsis = ""
    static let discussion = """
        Started by ladder build and ladder check, one process per job: it reads render requests
        on standard input and answers on standard output until its input closes, so that a
        crashing or runaway decoder costs only the source at hand.
        """
    static let options: [OptionSpec] = []
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "the input closed"), (.invalidConfiguration, "a request could not be read"),
        (ExitCode(rawValue: 70), "the image libraries cannot start"), (.ioError, "an answer could not be written"),
    ]
    static let isInternal = true

    init(parsing options: ParsedOptions) throws(UsageError) {
        guard options.positional.isEmpty else {
            throw UsageError("takes no arguments", command: Self.name)
        }
    }

    func run(_ context: CommandContext) -> ExitCode {
        ExitCode(rawValue: RenderWorker.serve())
    }
}
