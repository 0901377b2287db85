import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// `POST /api/v1/download` end to end: a real `serve`, its fetch children and `yt-dlp`, against
/// the loopback test site, with `--allow-private-fetch` naming that site's port only.
@Suite(.blocking, .serialized) struct LinkDownloadTests {
    static let client = "8d1f0c3a-5b7e-4f2a-9c6d-1e2f3a4b5c6d"

    /// A store folder (and a database, on PostgreSQL) with a configuration that lets links name
    /// 127.0.0.1, with short limits.
    struct Setup {
        let folder: TemporaryFolder
        let site: LinkTestSite
        /// `--database URL`, or nothing for the embedded index.
        let database: [String]
        var store: String { folder.url.appendingPathComponent("store").path }
        var config: String { folder.url.appendingPathComponent("config.json").path }
        /// Where every command of a test finds the store.
        var storeArguments: [String] { ["--store", store] + database }

        init(otherPort: Int = 9, backend: TestBackend = .sqlite) async throws {
            folder = try TemporaryFolder()
            site = try LinkTestSite(otherPort: otherPort)
            database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
            // 60 s: a fetch (yt-dlp's start included) takes a few seconds alone; on two cores busy with the
            // suite and a release build a page's took over 20 s. The trickling file (a byte every half
            // second) never ends within it.
            try Data(#"{"downloads": {"domains": ["127.0.0.1"], "fetch_seconds": 60, "max_bytes": 4000000}}"#.utf8)
                .write(to: URL(fileURLWithPath: config))
        }

        func serve(allowing: Bool = true, port: Int? = nil, token: String? = nil, fetchWorkers: Int = 2) throws -> ServerProcess {
            let allowance = allowing ? ["--allow-private-fetch", "127.0.0.1:\(site.port)"] : []
            return try ServerProcess(
                store: store, workers: 1, extra: ["--config", config, "--fetch-workers", "\(fetchWorkers)"] + allowance + database,
                environment: ["DOCPREVIEW_YT_DLP": LinkTestSite.extractor], token: token, port: port)
        }

        func remove() {
            site.stop()
            folder.remove()
        }
    }

    static func submit(_ server: ServerProcess, _ url: String, token: String? = nil) throws -> (status: Int, json: [String: Any]?) {
        var request = URLRequest(url: URL(string: server.base + "/api/v1/download")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["url": url, "client_id": client, "timestamp": "2026-11-24T12:00:00Z"])
        let authorized =
            token.map { token -> URLRequest in
                var request = request
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                return request
            } ?? server.authorized(request)
        return try ServerProcess.send(authorized)
    }

    /// The download once it has settled (done or failed, or waiting to retry after a failure), within `seconds`.
    static func settled(_ server: ServerProcess, _ id: String, seconds: Int = 120) throws -> [String: Any] {
        try waitFor("download \(id) to settle", timeout: .seconds(seconds), interval: .milliseconds(200)) {
            guard let json = try server.get("/api/v1/download/\(id)").json, let status = json["status"] as? String,
                status == "done" || status == "failed" || status == "queued" && json["error"] is String
            else { return nil }
            return json
        }
    }

    /// The database goes away while a link is fetched: the fetcher's outcome, refused, is recorded
    /// again once the database is back, instead of the download waiting out its lease (360 s here).
    @Test func anOutcomeTheDatabaseRefusedIsRecordedOnceItIsBack() async throws {
        guard TestBackend.available.contains(.postgres) else { return }  // DOCPREVIEW_TEST_SKIP=postgres
        let setup = try await Setup(backend: .postgres)
        defer { setup.remove() }
        // One fetcher: busy with the link, it leases nothing else, so the first fault it counts is its outcome refused.
        let server = try setup.serve(fetchWorkers: 1)
        let answer = try Self.submit(server, setup.site.url("delayed/video.mp4"))
        let id = try #require(answer.json?["download_id"] as? String, "\(answer)")
        try waitUntil("the fetch to start") { try server.get("/api/v1/download/\(id)").json?["status"] as? String == "downloading" }
        let outage = try await DatabaseOutage.begin(setup.database[1])
        // The fetch ends (3 s after it began) during the outage, and recording its outcome is refused.
        try waitUntil("the fetcher's outcome to be refused") {
            let metrics = try PlaybackServeTests.fetch(server.authorized(URLRequest(url: URL(string: server.base + "/metrics")!))).0
            return String(decoding: metrics, as: UTF8.self).contains("place=\"fetcher\"")
        }
        try await outage.end()
        let settled = try waitFor("the outcome to be recorded", timeout: .seconds(120)) { () -> String? in
            guard let status = try? server.get("/api/v1/download/\(id)").json?["status"] as? String, status != "downloading" else { return nil }
            return status
        }
        #expect(["queued", "done"].contains(settled), "recorded, to be tried again or done: \(settled)")
        // Not `settled`: a retry waiting its turn counts as settled there, and here the retry is the point.
        let ended = try waitFor("the download to end", timeout: .seconds(120), interval: .milliseconds(200)) { () -> [String: Any]? in
            guard let json = try server.get("/api/v1/download/\(id)").json, ["done", "failed"].contains(json["status"] as? String ?? "") else {
                return nil
            }
            return json
        }
        #expect(ended["status"] as? String == "done", "the next attempt downloads it: \(ended)")
    }

    @Test func everyCaseOfTheTestSiteEndsAsExpected() async throws {
        // The redirects to loopback point at the server's own port: the request a rebinding page would want to make.
        let port = LoopbackPort.free()
        let setup = try await Setup(otherPort: port)
        defer { setup.remove() }
        let server = try setup.serve(port: port)
        let expected: [(path: String, status: String, code: String?)] = [
            ("video.mp4", "done", nil), ("page.html", "done", nil), ("hop/3", "done", nil),
            ("to-loopback", "failed", "private_address"), ("to-octal", "failed", "private_address"),
            ("to-mapped", "failed", "private_address"), ("to-decimal", "failed", "private_address"),
            ("missing", "failed", "link_failed"), ("no-video.html", "failed", "no_video_stream"),
            ("large.mp4", "failed", "file_too_large"), ("large-unsized.mp4", "failed", "file_too_large"),
            ("trickle.mp4", "queued", "timeout")
        ]
        var ids: [String: String] = [:]
        for (path, _, _) in expected {
            let answer = try Self.submit(server, setup.site.url(path))
            #expect(answer.status == 202 && answer.json?["status"] as? String == "queued", "\(path): \(answer)")
            ids[path] = try #require(answer.json?["download_id"] as? String)
        }
        for (path, status, code) in expected {
            let download = try Self.settled(server, ids[path]!)
            #expect(download["status"] as? String == status, "\(path): \(download)")
            #expect(download["error"] as? String == code, "\(path): \(download)")
            if status == "done" {
                let document = try #require(download["document_id"] as? String)
                let view = try #require(try server.get("/v1/documents/\(document)").json)
                #expect(view["type"] as? String == "highlight_video" && view["kind"] as? String == "mp4")
                let sources = try #require(view["sources"] as? [[String: Any]])
                #expect(sources.contains { $0["client_id"] as? String == Self.client && ($0["url"] as? String)?.hasSuffix(path) == true })
                let thumbnail = try #require(download["thumbnail_url"] as? String)
                #expect(thumbnail.contains("sig="), "a signed thumbnail URL: \(thumbnail)")
            }
            if code == "timeout" { #expect(download["retry_at"] is String, "a time-out is retried later") }
        }
        // The same video through three links: the direct link and the redirect chain to it are one
        // document, the page (another title) a second one, and their bytes are stored once.
        let done = Set(["video.mp4", "hop/3"].compactMap { try? Self.settled(server, ids[$0]!)["document_id"] as? String })
        #expect(done.count == 1)
        let stats = try #require(try server.get("/v1/stats").json)
        #expect(stats["documents"] as? Int == 2 && stats["stored_bytes"] as? Int == (stats["logical_bytes"] as? Int).map { $0 / 2 }, "\(stats)")
    }

    @Test func withoutTheAllowanceTheLoopbackSiteIsRefused() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let server = try setup.serve(allowing: false)
        let id = try #require(try Self.submit(server, setup.site.url("video.mp4")).json?["download_id"] as? String)
        let download = try Self.settled(server, id)
        #expect(download["status"] as? String == "failed" && download["error"] as? String == "private_address", "\(download)")
        #expect((download["message"] as? String)?.contains("127.0.0.1 is in a loopback range") == true)
    }

    @Test func refusalsComeInTheClientsEnvelope() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let token = "t0k3n-" + UUID().uuidString + UUID().uuidString
        let server = try setup.serve(token: token)
        let cases: [(String, Int, String)] = [("https://example.com/v.mp4", 422, "unsupported_site"), ("ftp://tiktok.com/x", 400, "bad_request")]
        for (url, status, code) in cases {
            let answer = try Self.submit(server, url)
            #expect(
                answer.status == status && answer.json?["status"] as? String == "error" && answer.json?["error"] as? String == code,
                "\(url): \(answer)")
            #expect(answer.json?.keys.contains("download_id") == true && answer.json?["message"] is String && answer.json?["timestamp"] is String)
        }
        let unauthorized = try Self.submit(server, setup.site.url("video.mp4"), token: "wrong")
        #expect(
            unauthorized.status == 401 && unauthorized.json?["status"] as? String == "error"
                && unauthorized.json?["error"] as? String == "unauthorized")
    }

    /// A device token sends links and reads its downloads, nothing else; revoked, it opens nothing.
    @Test func deviceTokensOpenTheDownloadRoutesOnlyUntilRevoked() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let added = try DocPreviewProcess.run(["tokens", "add", "--device", "Ana's iPhone", "--owner", "ana", "--json"] + setup.storeArguments)
        #expect(added.status == 0, "\(added.stderr)")
        let token = try #require(added.json?["token"] as? String)
        let server = try setup.serve(token: "service-" + UUID().uuidString + UUID().uuidString)
        let answer = try Self.submit(server, setup.site.url("video.mp4"), token: token)
        #expect(answer.status == 202, "\(answer)")
        let id = try #require(answer.json?["download_id"] as? String)
        var asDevice = URLRequest(url: URL(string: server.base + "/api/v1/download/\(id)")!)
        asDevice.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        #expect(try ServerProcess.send(asDevice).status == 200)
        var documents = URLRequest(url: URL(string: server.base + "/v1/documents")!)
        documents.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        #expect(try ServerProcess.send(documents).status == 403, "a device token reads no documents")
        let download = try Self.settled(server, id)
        let document = try #require(download["document_id"] as? String)
        #expect(try server.get("/v1/documents/\(document)").json?["owner"] as? String == "ana")
        let revoked = try DocPreviewProcess.run(["tokens", "revoke", "Ana's iPhone"] + setup.storeArguments)
        #expect(revoked.status == 0)
        #expect(try Self.submit(server, setup.site.url("page.html"), token: token).status == 401, "revoked at once")
        let listed = try DocPreviewProcess.run(["tokens", "list"] + setup.storeArguments)
        #expect(listed.stdout.contains("Ana's iPhone\tana\trevoked"))
    }

    /// The client's retry pattern: the same request ten times, some while the server restarts,
    /// gives one download, one document and one job.
    @Test(arguments: TestBackend.available) func theClientsRetriesMakeOneDownloadAcrossRestarts(backend: TestBackend) async throws {
        let setup = try await Setup(backend: backend)
        defer { setup.remove() }
        let port = LoopbackPort.free()
        var server = try setup.serve(port: port)
        var ids: Set<String> = []
        var refused = 0
        for attempt in 0..<10 {
            if attempt == 3 || attempt == 7 {
                kill(server.process.processIdentifier, attempt == 3 ? SIGTERM : SIGKILL)
                server.process.waitUntilExit()
                // The client retries while the server is down: refused, kept in its offline cache.
                if (try? Self.submit(server, setup.site.url("page.html"))) == nil { refused += 1 }
                server = try setup.serve(port: port)
            }
            if let id = try Self.submit(server, setup.site.url("page.html")).json?["download_id"] as? String { ids.insert(id) }
        }
        #expect(refused == 2)
        #expect(ids.count == 1, "\(ids)")
        let download = try Self.settled(server, ids.first!)
        #expect(download["status"] as? String == "done", "\(download)")
        let history = try #require(try server.get("/api/v1/downloads?client_id=\(Self.client)").json?["downloads"] as? [[String: Any]])
        #expect(history.count == 1)
        #expect((try server.get("/v1/documents").json?["documents"] as? [[String: Any]])?.count == 1)
        let jobs = try DocPreviewProcess.run(["jobs", "list", "--json"] + setup.storeArguments)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]])
        #expect(list.filter { $0["kind"] as? String == "preview" }.count == 1, "\(jobs.stdout)")
    }

    /// `kill -9` right after `queued`: the link was committed, so the restarted server downloads it.
    @Test(arguments: TestBackend.available) func aKilledServerLosesNoQueuedLink(backend: TestBackend) async throws {
        let setup = try await Setup(backend: backend)
        defer { setup.remove() }
        let port = LoopbackPort.free()
        let server = try setup.serve(port: port)
        let answer = try Self.submit(server, setup.site.url("page.html"))
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        #expect(answer.status == 202)
        let id = try #require(answer.json?["download_id"] as? String)
        let restarted = try setup.serve(port: port)
        let download = try Self.settled(restarted, id)
        #expect(download["status"] as? String == "done", "\(download)")
    }

    /// History, newest first, in keyset pages that links arriving meanwhile do not move.
    @Test func historyPagesAreStableWhileLinksArrive() async throws {
        let setup = try await Setup()
        defer { setup.remove() }
        let server = try setup.serve(fetchWorkers: 0)
        let first = try (0..<5).map { try #require(try Self.submit(server, setup.site.url("missing?\($0)")).json?["download_id"] as? String) }
        let page1 = try #require(try server.get("/api/v1/downloads?client_id=\(Self.client)&limit=2").json)
        for n in 5..<8 { _ = try Self.submit(server, setup.site.url("missing?\(n)")) }
        let cursor = try #require(page1["next_cursor"] as? String)
        let page2 = try #require(try server.get("/api/v1/downloads?client_id=\(Self.client)&limit=2&cursor=\(cursor)").json)
        let ids = { (page: [String: Any]) in (page["downloads"] as? [[String: Any]] ?? []).compactMap { $0["download_id"] as? String } }
        #expect(ids(page1) == [first[4], first[3]])
        #expect(ids(page2) == [first[2], first[1]])
        #expect(try server.get("/api/v1/downloads?client_id=not-a-uuid").status == 400)
    }
}
