import Foundation
import PreviewTestSupport
import Testing

/// `serve --tls-cert --tls-key` with a `tls-init` certificate: a client pinning the printed key gets
/// through, one pinning another key does not; HTTP/2 where the client offers it, HTTP/1.1 else;
/// the API's uploads, reads and ranges work over it, and the session cookie is `Secure`.
@Suite(.blocking, .serialized) struct TLSServeTests {
    static let token = "T" + UUID().uuidString.replacingOccurrences(of: "-", with: "")

    @Test func pinnedClientsReachTheAPIOverTLS() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tls = folder.url.appendingPathComponent("tls")
        let made = try DocPreviewProcess.run(["tls-init", "--out", tls.path, "--name", "localhost", "--name", "127.0.0.1", "--json"])
        let pin = try #require(made.json?["curl_pin"] as? String, "\(made.stderr)")
        let (certificate, key) = (tls.appendingPathComponent("cert.pem").path, tls.appendingPathComponent("key.pem").path)
        #expect(try DocPreviewProcess.run(["tls-init", "--out", tls.path]).status != 0, "an existing key is not replaced")

        // Links may name loopback only, and no fetcher runs (--fetch-workers 0): the link below is queued, never fetched.
        let config = folder.url.appendingPathComponent("config.json")
        try Data(#"{"downloads": {"domains": ["127.0.0.1"]}}"#.utf8).write(to: config)
        let port = LoopbackPort.free()
        let server = Process()
        server.executableURL = DocPreviewProcess.binary
        server.arguments = [
            "serve", "--store", folder.url.appendingPathComponent("store").path, "--port", "\(port)", "--workers", "1",
            "--tls-cert", certificate, "--tls-key", key, "--fetch-workers", "0", "--config", config.path
        ]
        server.environment = ProcessInfo.processInfo.environment.merging(["DOCPREVIEW_TOKEN": Self.token]) { $1 }
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL) }
        let base = "https://127.0.0.1:\(port)"
        let pinned = ["--cacert", certificate, "--pinnedpubkey", pin]
        try waitUntil("the TLS server to answer", interval: .milliseconds(100)) { (try? Self.curl(pinned + ["\(base)/healthz"]))?.status == 0 }

        let health = try Self.curl(pinned + ["-w", "\n%{http_version}", "\(base)/healthz"])
        #expect(health.status == 0 && health.output.hasSuffix("\n2"), "HTTP/2 by ALPN: \(health)")
        let wrong = try Self.curl([
            "--cacert", certificate, "--pinnedpubkey", "sha256//" + Data(repeating: 7, count: 32).base64EncodedString(),
            "\(base)/healthz"
        ])
        #expect(wrong.status == 90, "curl's exit for a pin that does not match: \(wrong)")
        let http1 = try Self.curl(pinned + ["--http1.1", "-w", "\n%{http_version}", "\(base)/healthz"])
        #expect(http1.status == 0 && http1.output.hasSuffix("\n1.1"), "\(http1)")
        let plain = try Self.curl(["--max-time", "3", "http://127.0.0.1:\(port)/healthz"])
        #expect(plain.status != 0 || !plain.output.contains("ok"), "no plain HTTP on the TLS port: \(plain)")

        // The API over HTTP/2: an upload, its document, a range of its original; a sign-in's cookie is Secure.
        let bearer = ["-H", "Authorization: Bearer \(Self.token)"]
        let upload = try Self.curl(
            pinned + bearer + [
                "--data-binary", "@\(Fixtures.sample("image.webp").path)",
                "\(base)/v1/documents?filename=photo.webp&title=Photo"
            ])
        let id = try #require(
            (try? JSONSerialization.jsonObject(with: Data(upload.output.utf8)) as? [String: Any])?["document_id"] as? String,
            "\(upload)")
        var document: [String: Any] = [:]
        try? waitUntil("the upload to be done", interval: .milliseconds(100)) {
            let read = try Self.curl(pinned + bearer + ["\(base)/v1/documents/\(id)"])
            document = (try? JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any]) ?? [:]
            return document["status"] as? String == "done"
        }
        #expect(document["status"] as? String == "done" && document["preview_status"] as? String == "ready", "\(document)")
        let range = try Self.curl(
            pinned + bearer + ["-r", "0-9", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "\(base)/v1/documents/\(id)/content"])
        #expect(range.output == "206 10", "\(range)")
        // The share-sheet client's request, as it sends it to the certificate it pins.
        let link = try Self.curl(
            pinned + bearer + [
                "-H", "Content-Type: application/json", "-w", "\n%{http_code}", "--data",
                #"{"url": "http://127.0.0.1:9/highlight.mp4", "client_id": "0b6f5c1e-2a3d-4e5f-8a9b-0c1d2e3f4a5b", "timestamp": "#
                    + #""2026-11-24T12:00:00Z"}"#,
                "\(base)/api/v1/download"
            ])
        #expect(link.status == 0 && link.output.hasSuffix("\n202") && link.output.contains(#""status":"queued""#), "\(link)")
        let preview = try Self.curl(pinned + bearer + ["-o", "/dev/null", "-w", "%{http_code} %{content_type}", "\(base)/v1/documents/\(id)/preview"])
        #expect(preview.output.hasPrefix("200 image/"), "\(preview)")
        let signIn = try Self.curl(pinned + ["-D", "-", "-o", "/dev/null", "--data", "token=\(Self.token)", "\(base)/ui/signin"])
        let cookie = signIn.output.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
        #expect(cookie?.contains("; Secure") == true, "\(signIn.output)")
    }

    /// Runs curl (silent, 20 s at most) with `arguments`; its exit status and standard output.
    static func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "20"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
