import Foundation
import PreviewTestSupport
import Testing

/// An installation (scripts/install-layout, which `scripts/build-release --prefix` runs) works from
/// wherever it is copied: its binary finds its PDF library in its own `../lib`, and its example
/// configuration is one the binary accepts.
@Suite(.blocking) struct InstallLayoutTests {
    @Test func aCopiedInstallationRendersAPDF() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let build = DocPreviewProcess.binary.deletingLastPathComponent()
        let laidOut = folder.url.appendingPathComponent("laid-out")
        let layout = try runScript("install-layout", [build.path, laidOut.path])
        #expect(layout.status == 0, "\(layout.output)")
        for file in [
            "bin/docpreview", "lib/libDocPreviewSplash.so", "lib/systemd/system/docpreview.service",
            "etc/docpreview/docpreview.env", "etc/docpreview/config.json"
        ] {
            #expect(FileManager.default.fileExists(atPath: laidOut.appendingPathComponent(file).path), "\(file)")
        }
        // Issue 65, item 13: the environment file names the files the layout made, and the token is the service's alone.
        let environment = try String(contentsOf: laidOut.appendingPathComponent("etc/docpreview/docpreview.env"), encoding: .utf8)
        let tokenFile = laidOut.appendingPathComponent("etc/docpreview/token").path
        #expect(environment.contains("DOCPREVIEW_TOKEN_FILE=\(tokenFile)\n"), "\(environment)")
        #expect(environment.contains("DOCPREVIEW_CONFIG=\(laidOut.path)/etc/docpreview/config.json\n"), "\(environment)")
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the token file is the service's alone: \(String(mode ?? 0, radix: 8))")
        let store = folder.url.appendingPathComponent("store").path
        let server = try ServerProcess(
            store: store, workers: 0, extra: ["--token-file", tokenFile],
            environment: ["DOCPREVIEW_CONFIG": laidOut.appendingPathComponent("etc/docpreview/config.json").path])
        #expect(try server.get("/healthz").status == 200, "serve starts with the files as laid out")
        // Moved somewhere else whole; the build folder's library is nowhere on its path.
        let moved = folder.url.appendingPathComponent("elsewhere/docpreview")
        try FileManager.default.createDirectory(at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: laidOut, to: moved)
        let output = folder.url.appendingPathComponent("page.png")
        let result = try DocPreviewProcess.run(
            [
                "render", Fixtures.sample("document-5-pages.pdf").path, "--page", "2", "--format", "png", "-o", output.path, "--json",
                "--config", moved.appendingPathComponent("etc/docpreview/config.json").path
            ],
            environment: ["LD_DEBUG": "files"], executable: moved.appendingPathComponent("bin/docpreview"))
        #expect(result.status == 0, "\(result.stdout) \(result.stderr.suffix(1500))")
        #expect(result.stderr.contains("calling init: \(moved.path)/bin/../lib/libDocPreviewSplash.so"), "the installation's own library was loaded")
        #expect(!result.stderr.contains(build.appendingPathComponent("libDocPreviewSplash.so").path))
        let bytes = try Data(contentsOf: output)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        let unit = try String(contentsOf: moved.appendingPathComponent("lib/systemd/system/docpreview.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(laidOut.path)/bin/docpreview serve"), "the unit names where it was laid out")
    }

    /// Runs one of the project's scripts; its output and error output together.
    private func runScript(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Fixtures.packageRoot.appendingPathComponent("scripts/\(name)")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
