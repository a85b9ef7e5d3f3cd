import LadderCLI

/// Runs ladder in this process as a user would type `arguments`, with `environment` as its
/// whole environment, and returns its exit code and what it wrote to each stream.
func runLadder(
    _ arguments: [String], environment: [String: String] = [:]
) -> (code: ExitCode, output: String, error: String) {
    let recording = RecordingConsole()
    let code = Ladder.run(
        arguments: ["ladder"] + arguments, console: recording.console, rendering: .tests, environment: environment)
    return (code, recording.output, recording.error)
}

extension Rendering {
    /// One render worker started from the built executable: what tests build and check with.
    static let tests = Rendering(
        executable: LadderExecutable.path ?? "ladder (not built; run scripts/build-ladder)", workers: 1)
}
