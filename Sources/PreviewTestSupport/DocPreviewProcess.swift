import Foundation

/// Runs the built `docpreview` binary, the way users and scripts do.
package enum DocPreviewProcess {
    package struct Result: Sendable {
        package var status: Int32
        package var stdout: String
        package var stderr: String

        /// stdout parsed as a JSON object (nil when it is not one).
        package var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    /// The binary beside the test bundle (SwiftPM builds both into one folder), or `$DOCPREVIEW_BIN`.
    package static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["DOCPREVIEW_BIN"] { return URL(fileURLWithPath: path) }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // Swift Testing on Linux may run from inside the .xctest bundle path.
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("docpreview").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("docpreview")
    }

    /// Runs `docpreview arguments…` (the built one, or `executable`) to completion with extra
    /// environment variables; after `timeout` seconds the process is killed (and the result says so
    /// with status 137).
    package static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120,
        executable: URL = binary
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        // stderr goes to a file: reading two pipes in turn could block when the second fills.
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let err = try FileHandle(forWritingTo: errURL)
        defer { try? err.close() }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchSource.makeTimerSource(queue: .global())
        watchdog.schedule(deadline: .now() + timeout)
        watchdog.setEventHandler { kill(pid, SIGKILL) }
        watchdog.resume()
        defer { watchdog.cancel() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // FileHandle, not Data(contentsOf:): on Linux the latter leaks its buffer for empty files.
        let stderr = (try? FileHandle(forReadingFrom: errURL).readToEnd()) ?? Data()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A fresh temporary folder, removed by `remove()`.
package struct TemporaryFolder: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `name` inside the folder and returns its URL.
    package func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    package func remove() { try? FileManager.default.removeItem(at: url) }
}
