import Foundation
import LadderCLI

/// Hands the command line to LadderCLI and exits with its code; nothing else lives here.
@main
struct Entrypoint {
    static func main() {
        exit(Ladder.run(arguments: CommandLine.arguments, rendering: .thisExecutable).rawValue)
    }
}
