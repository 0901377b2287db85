import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// `serve` as a process against clients that push on its bounds: bodies that never end, downloads
/// never read, slow uploaders, a rebinding `Host`, one stranger's slow renders.
extension ServeCommandTests {
    @Test func declaredOversizeIsRefusedBeforeTheBodyIsRead() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-size", "1MB"])
        let big = Data(count: 2 * 1024 * 1024)
        let result = try server.upload(big, query: "filename=big.pdf")
        #expect(result.status == 413)
        #expect((result.json?["error"] as? [String: String])?["message"] == "File exceeds 1MB limit.")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path + "/store/tmp").isEmpty)
    }

    /// Every corpus file uploaded to one server: an outcome in the manifest's set (or a documented
    /// disagreement) for each, and the server still up at the end.
    @Test func everyCorpusFileThroughTheServer() throws {
        guard let manifest = try ExpectationManifest.corpus() else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 2,
            extra: ["--timeout", String(corpusJobSeconds)])
        var outcomes: [String: String] = [:]
        var pending: [String: String] = [:]  // document id → file
        for entry in manifest.entries {
            let name = entry.file.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "upload"
            // FileHandle, not Data(contentsOf:): on Linux the latter leaks its buffer for empty files.
            let handle = try FileHandle(forReadingFrom: entry.url)
            let bytes = try handle.readToEnd() ?? Data()
            try handle.close()
            let result = try server.upload(bytes, query: "filename=\(name)&title=\(name)")
            if result.status == 202, let id = result.json?["document_id"] as? String {
                pending[id] = entry.file
            } else {
                outcomes[entry.file] = (result.json?["error"] as? [String: String])?["code"] ?? "HTTP \(result.status)"
            }
        }
        try? waitUntil("every corpus upload to end", timeout: .seconds(600), interval: .milliseconds(200)) {
            for (id, file) in pending {
                guard let document = try server.get("/v1/documents/\(id)").json, let status = document["status"] as? String,
                    status == "done" || status == "failed"
                else { continue }
                let preview = document["preview_status"] as? String
                outcomes[file] =
                    status == "done"
                    ? (preview == "no_preview" ? "no_preview" : "ok")
                    : ((document["error"] as? [String: String])?["code"] ?? "?")
                pending[id] = nil
            }
            return pending.isEmpty
        }
        #expect(pending.isEmpty, "not processed in time: \(pending.values.sorted())")
        for entry in manifest.entries {
            guard let outcome = outcomes[entry.file] else { continue }
            if let known = knownCorpusDisagreements[entry.file] {
                #expect(outcome == known.outcome, "\(entry.file): \(known.reason)")
            } else {
                #expect(entry.expected.contains(outcome), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
            }
        }
        #expect(try server.get("/healthz").status == 200)
        #expect(server.process.isRunning)
    }

    /// Bodies that never end or never complete a part, streamed over a real connection: each is
    /// answered with a 4xx long before it is all sent, and the server stays up with nothing staged.
    @Test func hostileBodiesAreCutOffWhileTheyStream() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-size", "1MB"])
        let residentBefore = Self.peakResidentMegabytes(server.process.processIdentifier)
        let kilobyte = [UInt8](repeating: 0x41, count: 1024)
        let form = "POST /v1/documents HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n"
        let raw = "POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
        let cases: [(name: String, head: String, first: String, repeating: [UInt8], status: Int)] = [
            ("32 MiB Content-Disposition", form, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"", kilobyte, 400),
            ("250,000 small fields", form, "", Array("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n".utf8), 400),
            (
                "endless epilogue", form, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.4\r\n--b--\r\n",
                kilobyte, 400
            ),
            ("endless preamble", form, "", kilobyte, 400),
            ("chunked raw body past the limit", raw, "%PDF-1.4\n", kilobyte, 413)
        ]
        for test in cases {
            let socket = try RawConnection(port: server.port)
            defer { socket.close() }
            let count = test.name.hasPrefix("250,000") ? 250_000 : 32 * 1024
            let pieces = [Array(test.first.utf8)] + AnySequence { (0..<count).lazy.map { _ in test.repeating }.makeIterator() }
            let answer = socket.streamChunked(head: test.head, pieces: pieces)
            #expect(answer.status == test.status, "\(test.name): \(String(describing: answer.status))")
            // Socket buffers on loopback take a few MiB before the server's answer is seen.
            let total = count * test.repeating.count
            #expect(answer.sent < total / 2, "\(test.name): \(answer.sent) of \(total) bytes went out before the answer")
        }
        #expect((try? server.get("/healthz").status) == 200, "the server still answers")
        let peak = Self.peakResidentMegabytes(server.process.processIdentifier)
        print("hostile bodies: server peak RSS \(peak) MB before \(residentBefore) MB")
        #expect(peak - residentBefore < 48, "memory grew from \(residentBefore) to \(peak) MB")
        try Self.waitForStaging(folder, count: 0)
    }

    /// Clients that ask for a large original and never read: each holds a few chunks, not the file,
    /// and is closed after the idle timeout; the server's memory comes back when they are gone.
    @Test func downloadsThatAreNotReadAreBoundedAndClosed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A hundred clients from one address: more than an address's share of connections by default.
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0,
            extra: ["--idle-timeout", "4", "--max-connections-per-client", "200"])
        let payload = String(repeating: "0123456789abcdef", count: 24 << 16)
        let large = PDFWriter.document([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
            "<< /Length \(payload.utf8.count) >>\nstream\n\(payload)\nendstream"
        ])
        let id = try #require(try server.upload(Data(large), query: "filename=large.pdf").json?["document_id"] as? String)
        let pid = server.process.processIdentifier
        let baseline = Self.residentMegabytes(pid)
        var clients: [RawConnection] = []
        for _ in 0..<100 {
            let client = try RawConnection(port: server.port, receiveBuffer: 4096)
            client.send("GET /v1/documents/\(id)/content HTTP/1.1\r\nHost: localhost\r\n\r\n")
            clients.append(client)
        }
        sleep(2)  // the server fills what each socket takes, then stalls: no event marks the end of that
        let stalled = Self.residentMegabytes(pid)
        #expect(stalled - baseline < 100, "100 stalled downloads of a 24 MB file took \(stalled - baseline) MB")
        #expect(Self.establishedConnections(port: server.port) >= 100)
        try? waitUntil("the idle timeout to close the clients that do not read") { Self.establishedConnections(port: server.port) == 0 }
        #expect(Self.establishedConnections(port: server.port) == 0, "the server closed the clients that do not read")
        for client in clients { client.close() }
        try? waitUntil("memory to come back", timeout: .seconds(30)) { Self.residentMegabytes(pid) - baseline < 40 }
        #expect(Self.residentMegabytes(pid) - baseline < 40, "memory comes back after the clients are gone")
        #expect(try server.get("/healthz").status == 200)
    }

    /// A client that asks for an uncached page and hangs up before the server gets to it costs no
    /// render (the test hook holds each preview 0.5 s before it checks on its client).
    @Test func aDisconnectedClientsRenderIsNotStarted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, environment: ["DOCPREVIEW_TEST_HOOKS": "1"])
        let id = try #require(
            try server.upload(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")), query: "filename=d.pdf")
                .json?["document_id"] as? String)
        try server.document(id, reaching: ["done"])
        // Its text job follows the preview job, and adds its derivative: counted before the page.
        try waitUntil("the document's text to be read") { try server.get("/v1/documents/\(id)/text").status == 200 }
        func previews() throws -> Int { try server.get("/v1/stats").json?["previews"] as? Int ?? -1 }
        let before = try previews()

        let socket = try RawConnection(port: server.port)
        socket.send("GET /v1/documents/\(id)/preview?page=3&width=1024 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        socket.close()
        usleep(1_500_000)  // no event ends a wait for what must not happen: the hook holds the preview 0.5 s, then looks for its client
        #expect(try previews() == before, "a page was rendered for a client that had gone")

        #expect(try server.get("/v1/documents/\(id)/preview?page=4&width=1024").status == 200)
        // Stored once answered (2 s after, under the test hooks).
        try? waitUntil("the answered render to be stored") { try previews() != before }
        #expect(try previews() == before + 1, "a client that stays gets its render")
    }

    /// With `--max-uploads 1`, a second upload while one is still arriving is told to come back.
    @Test func uploadsBeyondTheCapAreAskedToRetry() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-uploads", "1"])
        let slow = try RawConnection(port: server.port)
        defer { slow.close() }
        slow.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%PDF-1.7\n")
        try Self.waitForStaging(folder, count: 1)
        let second = try RawConnection(port: server.port)
        defer { second.close() }
        second.send("POST /v1/documents?filename=b.txt HTTP/1.1\r\nHost: localhost\r\nContent-Length: 6\r\n\r\nnotes\n")
        #expect(second.readStatus() == 429)
    }

    /// Slow uploaders holding every slot (a byte now and then, inside the idle timeout) give their
    /// slots up to honest uploads once they have been slow for the grace period.
    @Test func slowUploadersLeaveRoomForHonestOnes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0,
            extra: ["--max-uploads", "4", "--max-uploads-per-client", "4"])
        var slow: [RawConnection] = []
        for _ in 0..<4 {
            let connection = try RawConnection(port: server.port)
            connection.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%")
            slow.append(connection)
        }
        defer { slow.forEach { $0.close() } }
        try Self.waitForStaging(folder, count: 4)
        #expect(
            try server.upload(try Data(contentsOf: Fixtures.sample("image.webp")), query: "filename=a.webp").status == 429,
            "every slot is taken, and nobody has been slow for long yet")
        sleep(3)  // the server's own 2 s grace, on its own clock (a process of its own): nothing to wait for but time
        for index in 0..<6 {
            let status = try server.upload(try Data(contentsOf: Fixtures.sample("image.webp")), query: "filename=a.webp&title=t\(index)").status
            #expect(status == 202, "honest upload \(index): \(status)")
        }
    }

    @Test func aStalledUploadIsCutOffAndLeavesNothingBehind() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--idle-timeout", "1"])
        // Promise 100 kB, send 10 bytes, then nothing.
        let socket = try RawConnection(port: server.port)
        defer { socket.close() }
        socket.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%PDF-1.7\n\n")
        #expect(socket.waitForClose(seconds: 60), "the server kept a stalled upload open")
        #expect((try? server.get("/healthz").status) == 200, "the server still answers")
        try Self.waitForStaging(folder, count: 0)
    }

    /// DNS rebinding: a page on the attacker's name, resolved to this loopback server, sends its name as `Host`.
    @Test func aRebindingHostIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--public-host", "previews.example.org"])
        for (host, status) in [
            ("rebind.attacker.example:\(server.port)", 421), ("localhost:\(server.port)", 200),
            ("127.0.0.1:\(server.port)", 200), ("previews.example.org", 200)
        ] {
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send("GET /v1/stats HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\n\r\n")
            #expect(connection.readStatus() == status, "\(host)")
        }
    }

    /// One stranger's four slow PDFs (the same bytes under new titles) and another owner's image:
    /// the image is done within seconds, the PDFs fail with `timeout` at the page budget, and the
    /// three after the first fail without drawing again.
    @Test func slowPDFsDoNotHoldUpAnotherOwnersImage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("limits.json")
        try Data(#"{"limits": {"page_seconds": 3}}"#.utf8).write(to: config)
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, extra: ["--config", config.path])
        let slow = Data(SlowPDF.make())
        var pdfs: [String] = []
        for index in 0..<4 {
            let accepted = try server.upload(slow, query: "filename=slow.pdf&owner=stranger&title=slow-\(index)")
            pdfs.append(try #require(accepted.json?["document_id"] as? String))
        }
        let started = Date()
        let image = try #require(
            try server.upload(
                try Data(contentsOf: Fixtures.sample("image-alpha.png")),
                query: "filename=a.png&owner=coach"
            ).json?["document_id"] as? String)
        func status(_ id: String) throws -> String? { try server.get("/v1/documents/\(id)").json?["status"] as? String }
        try server.document(image, reaching: ["done"])
        // Bounds far above a fair wait (one 3 s page budget, in CPU time) and below an unfair one on
        // a loaded machine: behind all four PDFs drawn in turn.
        #expect(Date().timeIntervalSince(started) < 30, "the image waited behind the slow PDFs")
        try? waitUntil("the slow PDFs to fail") { try pdfs.allSatisfy { try status($0) == "failed" } }
        for id in pdfs {
            let document = try #require(try server.get("/v1/documents/\(id)").json)
            #expect((document["error"] as? [String: Any])?["code"] as? String == "timeout", "\(document)")
        }
        #expect(Date().timeIntervalSince(started) < 60, "remembered timeouts fail at once")
    }
}
