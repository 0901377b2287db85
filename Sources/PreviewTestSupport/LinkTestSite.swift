import Foundation

/// The loopback site link-download tests fetch from (`scripts/link-test-site.py`: an MP4, a page
/// with a `<video>`, redirects, redirects to private addresses, a 404, a page with no video, a file
/// over the size limit, a trickle, a file sent after 3 s), started on a free port and stopped by ``stop()``.
package final class LinkTestSite: @unchecked Sendable {  // immutable after init
    package let port: Int
    private let process = Process()

    /// - Parameter otherPort: where the redirects to loopback and to mapped and decimal addresses point.
    package init(otherPort: Int = 9) throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("link-site-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Fixtures.packageRoot.appendingPathComponent("scripts/link-test-site.py").path,
            Fixtures.sample("video-h264.mp4").path, portFile.path, String(otherPort)
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { try? FileManager.default.removeItem(at: portFile) }
        for _ in 0..<200 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                self.port = port
                return
            }
            usleep(50_000)
        }
        process.terminate()
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the link test site did not start"])
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/path`.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The `yt-dlp` that `scripts/install-deps` pins in the project's tool environment.
    package static let extractor = Fixtures.packageRoot.appendingPathComponent(".venv-tools/bin/yt-dlp").path
}
