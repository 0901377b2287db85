import Foundation

/// A process a test runs beside itself (a client mid-transfer, a relay, a command to interrupt), its
/// output discarded.
package enum QuietProcess {
    /// Starts `executable arguments…` with `environment` over the test's own.
    package static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

extension Process {
    /// Ends the process at once and waits for it. SIGKILL: a child of the test runner may start
    /// with SIGTERM blocked (the mask survives exec).
    package func killAndWait() {
        kill(processIdentifier, SIGKILL)
        waitUntilExit()
    }
}
