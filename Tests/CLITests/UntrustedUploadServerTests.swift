import Foundation
import PreviewTestSupport
import Testing

/// `docpreview upload` trusts the server it is given no further than it must (issue 65, item 7):
/// its token goes only to that server's origin, and a server that never moves the offset is given
/// up on after the client's back-off, with a clear message. The servers are a script's, on loopback.
@Suite struct UntrustedUploadServerTests {
    /// Runs `docpreview upload` against the script in `mode`; its result and the script's counts.
    static func upload(against mode: String) throws -> (result: DocPreviewProcess.Result, stats: [String: [String: Int]]) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (ports, stats) = (folder.url.appendingPathComponent("ports"), folder.url.appendingPathComponent("stats.json"))
        let server = try QuietProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                Fixtures.packageRoot.appendingPathComponent("Tests/Uploads/untrusted_upload_server.py").path, "--mode", mode,
                "--ports", ports.path, "--stats", stats.path
            ])
        defer { server.killAndWait() }
        try waitUntil("the script to listen") { FileManager.default.fileExists(atPath: ports.path) }
        let port = try #require(try String(contentsOf: ports, encoding: .utf8).split(separator: " ").first)
        let result = try DocPreviewProcess.run(
            [
                "upload", Fixtures.sample("image-cmyk.jpg").path, "--server", "http://127.0.0.1:\(port)", "--owner", "ana", "--retries", "3",
                "--chunk-size", "64KB"
            ],
            environment: ["DOCPREVIEW_TOKEN": "the-service-token", "XDG_CACHE_HOME": folder.url.appendingPathComponent("cache").path], timeout: 60)
        let counts = (try? JSONSerialization.jsonObject(with: Data(contentsOf: stats))) as? [String: [String: Int]] ?? [:]
        return (result, counts)
    }

    @Test func theTokenGoesOnlyToTheServersOrigin() throws {
        let (result, stats) = try Self.upload(against: "elsewhere")
        #expect(result.status != 0 && result.status != 137, "refused, not hung: \(result.stderr)")
        #expect(
            result.stdout.contains("the token is sent only to") || result.stderr.contains("the token is sent only to"),
            "\(result.stdout) \(result.stderr)")
        #expect(stats["server"]?["tokens"] == 1, "the server itself got the token: \(stats)")
        #expect(stats["other"]?["tokens"] == 0, "the other origin never did: \(stats)")
    }

    @Test func aServerThatNeverMovesTheOffsetIsGivenUpOn() throws {
        let (result, stats) = try Self.upload(against: "stuck")
        #expect(result.status != 0 && result.status != 137, "given up, not killed at the test's limit: \(result.stderr)")
        #expect(
            result.stdout.contains("took none of the bytes") || result.stderr.contains("took none of the bytes"), "\(result.stdout) \(result.stderr)")
        // One append per try, and the three retries back off: no flood.
        #expect((stats["server"]?["patches"] ?? .max) <= 4, "\(stats)")
    }
}
