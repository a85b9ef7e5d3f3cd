import Foundation

/// Chromium in headless mode, for tests that check that a page ladder writes renders in a real
/// browser. Tests that need it are skipped, with a message, when none is installed.
enum HeadlessBrowser {
    /// The browser's executable, or nil.
    static let path: String? = {
        let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in names {
            for folder in folders {
                let candidate = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    static var isAvailable: Bool { path != nil }

    static let absenceNote = "no Chromium installed (apt-get install chromium); browser checks are skipped"

    /// What the browser made of a page.
    struct Rendering: Sendable {
        /// The document after its scripts ran.
        var dom: String
        /// Messages the page logged, and script errors.
        var console: [String]
    }

    /// Loads `page` (a file), lets its scripts run, and returns the resulting document; with
    /// `screenshot`, also saves a picture of the page there.
    static func render(_ page: String, screenshot: String? = nil) throws -> Rendering {
        let url = URL(fileURLWithPath: page).absoluteString
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=5000",
            "--enable-logging=stderr", "--v=0", "--user-data-dir=\(NSTemporaryDirectory())ladder-chromium-\(getpid())",
        ]
        let dump = try run(common + ["--dump-dom", url])
        if let screenshot {
            _ = try run(common + ["--window-size=1400,2000", "--screenshot=\(screenshot)", url])
        }
        let console = dump.error.split(separator: "\n").filter { $0.contains("CONSOLE") }.map(String.init)
        return Rendering(dom: dump.output, console: console)
    }

    private static func run(_ arguments: [String]) throws -> (output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path!)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read both pipes at once: a browser that fills one while we wait on the other hangs.
        let errorData = LockedData()
        let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { Thread.sleep(forTimeInterval: 0.01) }
        return (String(decoding: outputData, as: UTF8.self), String(decoding: errorData.value, as: UTF8.self))
    }
}

/// Data handed from one thread to another.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
