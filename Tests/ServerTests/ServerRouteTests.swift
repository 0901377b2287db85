import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewServer
import PreviewWeb
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

/// A server over a fresh store, driven in process through Hummingbird's router test client. Its
/// time is ``clock``'s, which moves only when the test advances it.
struct Harness {
    let folder: TemporaryFolder
    let clock = ManualClock()
    let pipeline: DocumentPipeline
    let queue: any JobQueue
    let server: DocumentServer

    init(
        _ backend: TestBackend = .sqlite, token: String? = nil, maxQueued: Int = 10_000, limits: Limits = Limits(),
        signingKeys: SigningKeys? = nil, passwordWindow: Duration = .seconds(60), arrivals: JobArrivals? = nil,
        settings adjust: (inout ServerSettings) -> Void = { _ in }
    ) async throws {
        let folder = try TemporaryFolder()
        try await self.init(
            opened: try backend.open(root: folder.url), folder: folder, token: token, maxQueued: maxQueued, limits: limits,
            signingKeys: signingKeys, passwordWindow: passwordWindow, arrivals: arrivals, settings: adjust)
    }

    /// A server over the store `opened`, whose files `folder` holds (removed with it).
    init(
        opened: StoreBackend, folder: TemporaryFolder, token: String? = nil, maxQueued: Int = 10_000, limits: Limits = Limits(),
        signingKeys: SigningKeys? = nil, passwordWindow: Duration = .seconds(60), arrivals: JobArrivals? = nil,
        settings adjust: (inout ServerSettings) -> Void = { _ in }
    ) throws {
        self.folder = folder
        // Built as `serve` builds it, rendering in this process.
        let documents = DocumentService(
            backend: opened, configuration: Configuration(limits: limits), offload: .forTests, arrivals: arrivals, clock: clock,
            logger: Logger(label: "test"))
        pipeline = documents.pipeline
        queue = opened.queue
        var settings = ServerSettings()
        settings.token = token
        settings.maxQueuedJobs = maxQueued
        settings.signingKeys = signingKeys
        settings.passwordWindow = passwordWindow
        adjust(&settings)
        server = DocumentServer(documents: documents, settings: settings, logger: Logger(label: "test"), pages: WebPages())
    }

    @discardableResult
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await buildApplication(server).test(.router, body)
    }

    /// Runs `body` with the server listening on a loopback port (its connections real ones).
    @discardableResult
    func live<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await buildApplication(server).test(.live, body)
    }

    /// Waits until the previews rendered for requests so far are stored (they are, just after their answers).
    func previewsKept() async {
        await server.keeping.settle(within: .seconds(10))
    }

    /// What a worker does, once per queued job.
    func drainQueue() async throws {
        while let (job, document) = try await queue.lease(worker: "test", leaseSeconds: 60) {
            _ = try await server.documents.run(job, of: document)
        }
    }
}

func sample(_ name: String) throws -> ByteBuffer {
    ByteBuffer(bytes: try Data(contentsOf: Fixtures.sample(name)))
}

func json(_ response: TestResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
}

func errorCode(_ response: TestResponse) throws -> String? {
    (try json(response)["error"] as? [String: Any])?["code"] as? String
}

func multipart(boundary: String, fields: [String: String], file: (name: String, bytes: [UInt8])?) -> ByteBuffer {
    var body = ByteBuffer()
    for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
    }
    if let file {
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\n")
        body.writeString("Content-Type: application/octet-stream\r\n\r\n")
        body.writeBytes(file.bytes)
        body.writeString("\r\n")
    }
    body.writeString("--\(boundary)--\r\n")
    return body
}

@Suite struct UploadRouteTests {
    @Test(arguments: TestBackend.available) func rawUploadIsAcknowledgedAfterItIsStored(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(
                uri: "/v1/documents?filename=Letter.PDF&type=rec_letter&owner=ana&title=Letter", method: .post,
                body: try sample("document-5-pages.pdf")
            ) { response in
                #expect(response.status == .accepted)
                let body = try json(response)
                #expect(body["status"] as? String == "queued")
                let id = try #require(body["document_id"] as? String)
                let sha = try #require(body["sha256"].flatMap { $0 as? String }.flatMap(BlobHash.init(hex:)))
                #expect(await harness.pipeline.store.blobs.contains(sha), "bytes durable before the 202")
                let job = try await #require(try harness.queue.latestJob(documentID: id))
                #expect(job.status == .queued && job.id == body["job_id"] as? Int64)
                #expect(response.headers[.location] == "/v1/documents/\(id)")
            }
        }
    }

    @Test(arguments: TestBackend.available) func multipartUploadWithFields(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let body = multipart(
            boundary: "XyZ-boundary", fields: ["owner": "ben", "type": "highlight_video", "title": "Senior season"],
            file: ("clip.mp4", Array(try Data(contentsOf: Fixtures.sample("video-h264.mp4")))))
        try await harness.test { client in
            try await client.execute(
                uri: "/v1/documents", method: .post,
                headers: [.contentType: "multipart/form-data; boundary=XyZ-boundary"], body: body
            ) { response in
                #expect(response.status == .accepted)
                let id = try #require(try json(response)["document_id"] as? String)
                let document = try await #require(try harness.pipeline.store.index.document(id: id))
                #expect(document.owner == "ben" && document.type == "highlight_video" && document.title == "Senior season")
                #expect(document.filename == "clip.mp4" && document.kind == .mp4)
            }
            let noFile = multipart(boundary: "b", fields: ["owner": "ben"], file: nil)
            try await client.execute(
                uri: "/v1/documents", method: .post, headers: [.contentType: "multipart/form-data; boundary=b"],
                body: noFile
            ) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    /// What made MultipartKit's parser trap, and the whole server with it (found by `scripts/api-fuzz`):
    /// a byte above 0x7F in a part's header name, and an empty boundary. Each is a 400, and a file
    /// name in UTF-8 (a header's value) is still taken.
    @Test func malformedMultipartIsRefusedNotATrap() async throws {
        let harness = try await Harness(.sqlite)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let refused: [(String, String)] = [
                ("b", "--b\r\n\u{F3}--b--\r\n"),
                ("b", "--b\r\nContent-Disposition: form-data; name=\"owner\"\r\n\u{87}\u{AC}: x\r\n\r\nben\r\n--b--\r\n"),
                ("1a3b", "preamble\r\n--1a3b\r\nX\u{C3}\u{B3}: y\r\n\r\n\r\n--1a3b--\r\n"),
                ("", "--\r\n\r\n"),
                ("\"\"", "--\r\n\r\n")
            ]
            for (boundary, body) in refused {
                try await client.execute(
                    uri: "/v1/documents", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"],
                    body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .badRequest, "\(boundary): \(body.debugDescription)")
                }
            }
            let named = multipart(
                boundary: "b", fields: ["owner": "ana"], file: ("résumé.pdf", Array(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))))
            try await client.execute(uri: "/v1/documents", method: .post, headers: [.contentType: "multipart/form-data; boundary=b"], body: named) {
                response in
                #expect(response.status == .accepted)
                let id = try #require(try json(response)["document_id"] as? String)
                #expect(try await harness.pipeline.store.index.document(id: id)?.filename == "résumé.pdf")
            }
        }
    }

    @Test(arguments: TestBackend.available) func refusalsUseTheContractsStatuses(backend: TestBackend) async throws {
        var limits = Limits()
        limits.maxFileBytes = 64 * 1024
        let harness = try await Harness(backend, limits: limits)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let cases: [(String, ByteBuffer, HTTPFields, HTTPResponse.Status, String?)] = [
                ("/v1/documents?filename=cv.pdf", try sample("bad-zip-named.pdf"), [:], .unsupportedMediaType, "content_mismatch"),
                (
                    "/v1/documents?filename=cv.pdf&type=highlight_video", try sample("document-5-pages.pdf"), [:], .unsupportedMediaType,
                    "extension_not_allowed"
                ),
                ("/v1/documents?filename=run.pdf", try sample("bad-executable.pdf"), [:], .unsupportedMediaType, "executable_refused"),
                ("/v1/documents?filename=empty.pdf", ByteBuffer(), [:], .unprocessableContent, "empty_file"),
                ("/v1/documents?filename=big.mov", try sample("video-h264.mov"), [:], .contentTooLarge, "file_too_large"),
                ("/v1/documents?filename=a.pdf&type=photo", try sample("document-5-pages.pdf"), [:], .badRequest, "bad_request"),
                ("/v1/documents?filename=a.pdf&title=a%00b", try sample("document-5-pages.pdf"), [:], .badRequest, "bad_request"),
                ("/v1/documents?filename=a.pdf&owner=a%0Ab", try sample("document-5-pages.pdf"), [:], .badRequest, "bad_request")
            ]
            for (uri, body, headers, status, expectedCode) in cases {
                try await client.execute(uri: uri, method: .post, headers: headers, body: body) { response in
                    #expect(response.status == status, "\(uri)")
                    let actual = try errorCode(response)
                    #expect(actual == expectedCode, "\(uri)")
                }
            }
        }
        #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty, "nothing refused is stored")
        #expect(try harness.pipeline.store.blobs.leftoverTemporaries().isEmpty, "refused uploads leave nothing in tmp/")
    }

    @Test(arguments: TestBackend.available) func sameUploadTwiceIsOneDocumentAndOneJob(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            var ids: [String] = []
            for _ in 0..<2 {
                try await client.execute(uri: "/v1/documents?filename=a.webp&owner=o&title=t", method: .post, body: try sample("image.webp")) {
                    ids.append(try json($0)["document_id"] as? String ?? "")
                }
            }
            #expect(ids[0] == ids[1])
            #expect(try await harness.queue.jobs(status: nil, limit: 10).count == 1)
        }
    }

    @Test(arguments: TestBackend.available) func admissionControl(backend: TestBackend) async throws {
        let harness = try await Harness(backend, maxQueued: 0)
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, body: try sample("image.webp")) {
                #expect($0.status == .accepted)
            }
            try await client.execute(uri: "/v1/documents?filename=b.png", method: .post, body: try sample("image-alpha.png")) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "30")
                let code = try errorCode(response); #expect(code == "queue_full")
            }
        }
    }
}

@Suite struct DocumentRouteTests {
    @Test(arguments: TestBackend.available) func previewLifecycle(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            var id = ""
            try await client.execute(uri: "/v1/documents?filename=doc.pdf", method: .post, body: try sample("document-5-pages.pdf")) {
                id = try json($0)["document_id"] as? String ?? ""
            }
            try await client.execute(uri: "/v1/documents/\(id)/preview", method: .get) { response in
                #expect(response.status == .accepted)
                #expect(response.headers[.retryAfter] != nil)
                let status = try json(response)["status"] as? String
                #expect(status == "queued")
            }
            try await client.execute(uri: "/v1/documents/\(id)", method: .get) {
                let status = try json($0)["status"] as? String; #expect(status == "queued")
            }
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(id)", method: .get) { response in
                let body = try json(response)
                #expect(body["status"] as? String == "done" && body["pages"] as? Int == 5)
                #expect((body["links"] as? [String: String])?["thumbnail"] == "/v1/documents/\(id)/preview")
            }
            var etag = ""
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=300&format=png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl]?.contains("immutable") == true)
                #expect(response.headers[.cacheControl]?.hasPrefix("private") == true, "one owner's document: no shared caches")
                etag = response.headers[.eTag] ?? ""
                #expect(etag.count == 66)
                #expect(Array(Data(buffer: response.body).prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            }
            try await client.execute(
                uri: "/v1/documents/\(id)/preview?page=2&width=300&format=png", method: .get,
                headers: [.ifNoneMatch: etag]
            ) { #expect($0.status == .notModified) }
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=9", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                let code = try errorCode(response); #expect(code == "page_out_of_range")
            }
            try await client.execute(uri: "/v1/documents/\(id)/preview?width=99999", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/v1/documents/nope", method: .get) { response in
                #expect(response.status == .notFound)
                let code = try errorCode(response); #expect(code == "not_found")
            }
            try await client.execute(uri: "/v1/documents/..%2F..%2Fetc%2Fpasswd/preview", method: .get) { #expect($0.status == .notFound) }
        }
    }

    /// An office document is ready as soon as its first page is made (issue 31): its thumbnail is
    /// recorded and served while its job still runs (its other pages wait for the job, 202); the
    /// job's end records its pivot and page count.
    @Test(arguments: TestBackend.available) func anOfficeThumbnailIsServedBeforeItsJobEnds(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        try await harness.test { client in
            let id = try await client.execute(uri: "/v1/documents?filename=s.xlsx", method: .post, body: try sample("office-stats.xlsx")) {
                try #require(try json($0)["document_id"] as? String)
            }
            let (job, document) = try await #require(try harness.queue.lease(worker: "test", leaseSeconds: 60))
            let recorded = Locked(false)
            let outcome = await harness.pipeline.outcome(of: document) { early in
                await documents.recordAhead(early, documentID: document.id)
                recorded.withLock { $0 = true }
            }
            let recordedAhead = recorded.withLock { $0 }
            #expect(recordedAhead, "the thumbnail came from the first page, ahead of the pivot")
            try await client.execute(uri: "/v1/documents/\(id)", method: .get) { response in
                let body = try json(response)
                #expect(body["status"] as? String == "processing" && body["preview_status"] as? String == "ready", "\(body)")
            }
            try await client.execute(uri: "/v1/documents/\(id)/preview", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Array(Data(buffer: response.body).prefix(2)) == [0xFF, 0xD8])
            }
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=512", method: .get) { #expect($0.status == .accepted) }
            guard case .done = try await documents.finish(job, with: outcome) else { Issue.record("not done"); return }
            try await client.execute(uri: "/v1/documents/\(id)", method: .get) { response in
                let body = try json(response)
                #expect(body["status"] as? String == "done" && body["pages"] as? Int == 2, "\(body)")
            }
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=512", method: .get) { #expect($0.status == .ok) }
        }
        await harness.previewsKept()
        let report = try await harness.pipeline.store.verify()
        #expect(report.isClean, "\(report)")
    }

    @Test(arguments: TestBackend.available) func failedAndOfficeDocuments(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            var encrypted = "", sheet = ""
            try await client.execute(uri: "/v1/documents?filename=e.pdf", method: .post, body: try sample("bad-encrypted.pdf")) {
                encrypted = try json($0)["document_id"] as? String ?? ""
            }
            try await client.execute(uri: "/v1/documents?filename=s.xlsx", method: .post, body: try sample("office-stats.xlsx")) {
                sheet = try json($0)["document_id"] as? String ?? ""
            }
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(encrypted)", method: .get) { response in
                let body = try json(response)
                #expect(body["status"] as? String == "failed")
                #expect((body["error"] as? [String: Any])?["code"] as? String == "encrypted")
            }
            try await client.execute(uri: "/v1/documents/\(encrypted)/preview", method: .get) {
                let code = try errorCode($0); #expect(code == "encrypted")
            }
            // A spreadsheet: its pages come from its PDF pivot, each only when asked.
            try await client.execute(uri: "/v1/documents/\(sheet)", method: .get) { response in
                let body = try json(response)
                #expect(body["status"] as? String == "done")
                #expect(body["pages"] as? Int == 2, "\(body)")
                #expect((body["links"] as? [String: String])?["page"] != nil)
            }
            for page in [1, 2] {
                try await client.execute(uri: "/v1/documents/\(sheet)/preview?page=\(page)&width=512", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/jpeg")
                }
            }
            try await client.execute(uri: "/v1/documents/\(sheet)/preview?page=3", method: .get) {
                let code = try errorCode($0); #expect(code == "page_out_of_range")
            }
            let failed = try await harness.queue.jobs(status: .failed, limit: 10)
            #expect(failed.count == 1 && failed[0].attempts == 1, "input errors are not retried")
        }
    }

    @Test(arguments: TestBackend.available) func statsMetricsHealthAndPage(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.webp&owner=ana&type=", method: .post, body: try sample("image.webp")) { _ in }
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/stats?owner=ana", method: .get) { response in
                let body = try json(response)
                // What was made of it: its thumbnail, and its words (read by OCR).
                #expect(body["documents"] as? Int == 1 && body["previews"] as? Int == 2)
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect(String(buffer: $0.body) == "ok\n") }
            // A scrape waits at most a second for the store's figures, then answers with what the
            // process holds: on a busy machine the first scrape may come before them, and the gauges
            // are the process's, so another test's server may have set them last.
            var text = ""
            try await waitUntilAsync("the store's figures in /metrics") {
                text = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
                return text.contains("docpreview_store_bytes{kind=\"stored\"}") && text.contains("docpreview_jobs{status=\"done\"} 2")
            }
            #expect(text.contains("docpreview_uploads_total{outcome=\"accepted\"}"))
            #expect(text.contains("docpreview_jobs{status=\"done\"} 2"))  // its preview job and its text job
            try await client.execute(uri: "/?owner=ana", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<form id=\"upload\" method=\"post\" action=\"/ui/upload\" enctype=\"multipart/form-data\""))
                #expect(page.contains("/preview?width=256&amp;height=144&amp;format=webp\""), "a card's thumbnail is asked at its box's size")
            }
        }
    }
}

@Suite struct AuthTests {
    @Test func bearerTokenGuardsAllButHealth() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            for headers: HTTPFields in [
                [:], [.authorization: "Bearer wrong-horse!"], [.authorization: "Bearer correct-hors"], [.authorization: "correct-horse"]
            ] {
                try await client.execute(uri: "/v1/stats", method: .get, headers: headers) { response in
                    #expect(response.status == .unauthorized)
                    let code = try errorCode(response); #expect(code == "unauthorized")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer correct-horse"]) { #expect($0.status == .ok) }
            // The raw token is no cookie: browsers sign in (SignInTests).
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.cookie: "docpreview_session=correct-horse"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, body: try sample("image.webp")) {
                #expect($0.status == .unauthorized)
            }
        }
        #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty)
    }
}

@Suite struct SignInTests {
    private let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The session cookie a correct sign-in sets, checked for its flags.
    private func signIn(_ client: any TestClientProtocol) async throws -> String {
        try await client.execute(
            uri: "/ui/signin", method: .post, headers: form,
            body: ByteBuffer(string: "token=correct-horse&return=%2F%3Fowner%3Dana")
        ) { response in
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/?owner=ana")
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.contains("correct-horse"), "the cookie carries a derived session, not the token")
            return String(cookie.split(separator: ";")[0])
        }
    }

    @Test func browsersGetAFormAndACookieNotABare401() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            let signInPage = try await client.execute(uri: "/?owner=ana", method: .get) { response in
                #expect(response.status == .seeOther, "a browser without a session is sent to sign in")
                return try #require(response.headers[.location])
            }
            #expect(signInPage == "/ui/signin?return=%2F%3Fowner%3Dana", "and comes back to the page it asked for")
            try await client.execute(uri: signInPage, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                let form = String(buffer: response.body)
                #expect(form.contains("name=\"token\"") && form.contains("value=\"/?owner=ana\""))
            }
            try await client.execute(uri: "/ui/signin", method: .post, headers: form, body: ByteBuffer(string: "token=wrong&return=/")) {
                #expect($0.status == .unauthorized)
                #expect($0.headers[.setCookie] == nil)
            }
            try await client.execute(
                uri: "/ui/signin", method: .post, headers: form,
                body: ByteBuffer(string: "token=correct-horse&return=%2F%2Fevil.example%2F")
            ) {
                #expect($0.headers[.location] == "/", "no redirect off the site")
            }
            let cookie = try await signIn(client)
            try await client.execute(uri: "/?owner=ana", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<input type=\"hidden\" name=\"csrf\" value=\""), "the form carries the session's CSRF token")
                #expect(!page.contains("csrf="), "never in a URL")
            }
        }
    }

    @Test func cookieWritesNeedTheCSRFTokenAndTheSameOrigin() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            let cookie = try await signIn(client)
            let csrf = try await client.execute(uri: "/?owner=ana", method: .get, headers: [.cookie: cookie]) { response in
                String(try #require(String(buffer: response.body).firstMatch(of: /name="csrf" value="([A-Za-z0-9_-]+)"/)?.output.1))
            }
            let image = Array(try Data(contentsOf: Fixtures.sample("image.webp")))
            func upload(csrf: String?) -> ByteBuffer {
                multipart(boundary: "b", fields: ["owner": "ana"].merging(csrf.map { ["csrf": $0] } ?? [:]) { $1 }, file: ("a.webp", image))
            }
            let type: HTTPFields = [.contentType: "multipart/form-data; boundary=b", .cookie: cookie]
            try await client.execute(uri: "/ui/upload", method: .post, headers: type, body: upload(csrf: nil)) {
                #expect($0.status == .forbidden, "no CSRF token")
            }
            try await client.execute(uri: "/ui/upload", method: .post, headers: type, body: upload(csrf: csrf + "x")) {
                #expect($0.status == .forbidden, "a wrong CSRF token")
            }
            try await client.execute(uri: "/ui/upload?csrf=\(csrf)", method: .post, headers: type, body: upload(csrf: nil)) {
                #expect($0.status == .forbidden, "the token in the URL does not count")
            }
            var crossSite = type
            crossSite[HTTPField.Name("Origin")!] = "http://evil.example"
            try await client.execute(uri: "/ui/upload", method: .post, headers: crossSite, body: upload(csrf: csrf)) {
                #expect($0.status == .forbidden, "another site's page")
            }
            #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty)
            try await client.execute(uri: "/ui/upload", method: .post, headers: type, body: upload(csrf: csrf)) {
                #expect($0.status == .seeOther)
            }
        }
    }

    /// A page on another site posting a `text/plain` form (no preflight) to an open server.
    @Test func crossSiteWritesAreRefusedEvenWithoutAToken() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            for headers: HTTPFields in [
                [.contentType: "text/plain", HTTPField.Name("Origin")!: "http://evil.example"],
                [.contentType: "text/plain", HTTPField.Name("Origin")!: "null"],
                [.contentType: "text/plain", HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
            ] {
                try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, headers: headers, body: try sample("image.webp")) {
                    #expect($0.status == .forbidden)
                    let code = try errorCode($0); #expect(code == "forbidden")
                }
            }
            #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty)
            try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, body: try sample("image.webp")) {
                #expect($0.status == .accepted, "clients that are not browsers send no Origin")
            }
        }
    }
}

@Suite struct PreviewAmplificationTests {
    /// 300 different widths asked for at once: widths are served on a few steps (a handful of
    /// derivatives), and renders beyond the in-flight bound are refused with 429, not queued on
    /// threads of their own.
    @Test(arguments: TestBackend.available) func manyWidthsAtOnceStayBounded(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let id = try await #require(
            harness.pipeline.ingest(
                Fixtures.sample("document-5-pages.pdf"),
                labels: DocumentLabels(owner: "o", title: "t", filename: "d.pdf")
            ).documentID)
        let statuses = try await harness.test { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for width in 1...300 {
                    group.addTask {
                        try await client.execute(uri: "/v1/documents/\(id)/preview?page=\(width % 5 + 1)&width=\(width)", method: .get) { response in
                            if response.status == .tooManyRequests { #expect(response.headers[.retryAfter] != nil) }
                            return response.status
                        }
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status: Int]()) { $0[$1, default: 0] += 1 }
            }
        }
        #expect(Set(statuses.keys).isSubset(of: [.ok, .tooManyRequests]), "\(statuses)")
        #expect(statuses[.ok, default: 0] > 0)
        let derivatives = try await harness.pipeline.store.index.statistics().previews
        #expect(derivatives <= 5 * 3 + 1, "pages 1–5 × widths 128, 256, 512, and the thumbnail: \(derivatives)")
        // Each preview in flight holds at most one thread (a render's own, or a blocking-pool one).
        #expect(harness.server.renders.highest <= harness.server.settings.maxRendersInFlight)
    }
}

@Suite struct PageEscapingTests {
    /// The reported stored XSS: a title whose angle brackets hide inside grapheme clusters.
    @Test func titlesAndOwnersAreTextOnThePage() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        let title = "\u{600}<img src=x onerror=alert(1)>\u{301}"
        let owner = "\"\u{301}><script>alert(2)</script>"
        let body = multipart(
            boundary: "b", fields: ["owner": owner, "title": title],
            file: ("a.webp", Array(try Data(contentsOf: Fixtures.sample("image.webp")))))
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents", method: .post, headers: [.contentType: "multipart/form-data; boundary=b"], body: body) {
                #expect($0.status == .accepted)
            }
            let query = owner.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try await client.execute(uri: "/?owner=\(query)", method: .get) { response in
                let page = String(buffer: response.body)
                // Compared as bytes: String.contains would see "&gt;" + U+0301 as another grapheme.
                let bytes = Data(page.utf8)
                for tag in ["<img src=x", "<script>alert"] { #expect(bytes.range(of: Data(tag.utf8)) == nil, "\(tag) reached the page") }
                #expect(bytes.range(of: Data("&lt;img src=x onerror=alert(1)&gt;".utf8)) != nil, "the title is shown, as text")
            }
        }
    }
}

@Suite struct QueueTests {
    private func queuedDocument(_ harness: Harness, title: String = "t") async throws -> JobRecord {
        let hash = try await harness.pipeline.store.blobs.put(fileAt: Fixtures.sample("image.webp")).hash
        let record = Document(
            id: UUID().uuidString, owner: "", type: nil, title: title, filename: "t.webp", sha256: hash, kind: .webp,
            mime: "image/webp", size: 1, facts: MediaFacts(), version: 0, previewStatus: PreviewStatus.pending, createdAt: Date())
        return try await harness.queue.enqueue(record).job
    }

    /// A job's run ends in one transaction: its thumbnail's row, the document's facts and status and
    /// the job's completion; the document's row carries its job's state. A run whose lease was lost
    /// leaves only its (correct) thumbnail row behind.
    @Test(arguments: TestBackend.available) func aJobsOutcomeIsRecordedWithItsCompletion(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let queued = try await queuedDocument(harness)
        #expect(try await harness.pipeline.store.index.document(id: queued.documentID)?.status == .queued)
        let (slow, document) = try await #require(try harness.queue.lease(worker: "slow", leaseSeconds: -1))
        #expect(try await harness.pipeline.store.index.document(id: document.id)?.status == .processing, "the row follows its job")
        let (fast, _) = try await #require(try harness.queue.lease(worker: "fast", leaseSeconds: 60))
        let outcome = await documents.outcome(of: fast, document)
        let thumbnail = try #require(outcome.derivatives.first?.record, "made, not yet recorded")
        #expect(try await harness.pipeline.store.index.derivative(key: thumbnail.key) == nil)
        guard case .leaseLost = try await documents.finish(slow, with: outcome) else { Issue.record("the lost lease must tell"); return }
        #expect(try await harness.pipeline.store.index.derivative(key: thumbnail.key) != nil, "the thumbnail is right whoever made it")
        let untouched = try await #require(try harness.pipeline.store.index.document(id: document.id))
        #expect(untouched.previewStatus == .pending && untouched.width == nil && untouched.status == .processing)
        guard case .done = try await documents.finish(fast, with: documents.outcome(of: fast, document)) else { Issue.record("not done"); return }
        let finished = try await #require(try harness.pipeline.store.index.document(id: document.id))
        #expect(finished.previewStatus == .ready && finished.width != nil && finished.status == .done)
    }

    /// Two slots of one worker process share its name: the slot whose lease ran out and was taken
    /// over by its sibling must not record, fail or release the sibling's attempt.
    @Test(arguments: TestBackend.available) func twoSlotsOfOneWorkerRaceOnOneExpiredJob(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        _ = try await queuedDocument(harness)
        let (first, _) = try await #require(try harness.queue.lease(worker: "host/1/w", leaseSeconds: -1))
        let (second, _) = try await #require(try harness.queue.lease(worker: "host/1/w", leaseSeconds: 60), "the run-out lease is taken over")
        #expect(first.leaseOwner == second.leaseOwner && second.attempts == first.attempts + 1)
        #expect(try await harness.queue.complete(first) == false, "the first slot's late outcome is not recorded")
        #expect(try await harness.queue.fail(first, error: PreviewError(.internal, "late"), retryable: true).status == .processing)
        try await harness.queue.release(first)
        let current = try await #require(try harness.queue.job(id: second.id!))
        #expect(current.status == .processing && current.attempts == second.attempts, "the second slot still holds its attempt")
        #expect(try await harness.queue.complete(second))
        #expect(try await harness.queue.job(id: second.id!)?.status == .done)
    }

    @Test(arguments: TestBackend.available) func concurrentWorkersNeverTakeTheSameJob(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let jobs = 60
        for number in 0..<jobs { _ = try await queuedDocument(harness, title: "t\(number)") }
        // NSLock, not Mutex: ThreadSanitizer sees pthread mutexes, not the futex under Synchronization.Mutex,
        // and reports the appends below as races when six threads contend for it.
        final class Tally: @unchecked Sendable {  // `ids` and `failures` only touched under `lock`
            let lock = NSLock()
            var ids: [Int64] = []
            var failures: [String] = []
        }
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    do {
                        while let (job, _) = try await harness.queue.lease(worker: "w\(worker)", leaseSeconds: 60) {
                            tally.lock.withLock { tally.ids.append(job.id!) }
                            try await harness.queue.complete(job)
                        }
                    } catch {
                        tally.lock.withLock { tally.failures.append("\(error)") }
                    }
                }
            }
        }
        #expect(tally.failures.isEmpty)
        let ids = tally.ids
        #expect(ids.count == jobs && Set(ids).count == jobs, "each job leased exactly once")
        #expect(try await harness.queue.counts()[.done] == jobs)
    }

    /// A preview job's completion queues its follow-up (a video's playback job) in the same
    /// transaction; preview jobs are leased before playback jobs, a slot that asks for previews only
    /// never gets a playback job, and the document's own state follows its preview job alone.
    @Test(arguments: TestBackend.available) func playbackJobsFollowAndWaitBehindPreviews(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        _ = try await queuedDocument(harness, title: "first")
        let (first, document) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(try await harness.queue.complete(first, recording: JobOutcome(previewStatus: .ready, followUp: .playback)))
        let playback = try await #require(try harness.queue.latestJob(documentID: document.id, kind: .playback))
        #expect(playback.status == .queued && playback.kind == .playback)
        #expect(try await harness.queue.latestJob(documentID: document.id)?.id == first.id, "the latest preview job is still the document's")
        _ = try await queuedDocument(harness, title: "second")
        let (early, _) = try await #require(try harness.queue.lease(worker: "early", leaseSeconds: 60, kinds: [.playback]))
        #expect(early.id == playback.id)
        try await harness.queue.release(early)

        let (preview, _) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60), "the newer preview job comes first")
        #expect(preview.kind == .preview)
        #expect(try await harness.queue.lease(worker: "lane", leaseSeconds: 60, kinds: [.preview]) == nil, "a previews-only slot waits")
        let (taken, _) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(taken.id == playback.id)
        #expect(
            try await harness.pipeline.store.index.document(id: document.id)?.status == .done, "a playback job does not move the document's state")
        try await harness.queue.reportProgress(taken, fraction: 0.5)
        try await harness.queue.reportProgress(early, fraction: 0.9)
        #expect(try await harness.queue.job(id: taken.id!)?.progress == 0.5, "only the lease's holder reports progress")
        _ = try await harness.queue.fail(
            taken, error: PreviewError(.tooLong, "too long"), retryable: false,
            recording: JobOutcome(previewStatus: nil, error: PreviewError(.tooLong, "too long")))
        let after = try await #require(try harness.pipeline.store.index.document(id: document.id))
        #expect(after.status == .done && after.previewStatus == .ready && after.errorCode == nil, "nor its preview status")
    }

    /// A backfill's queueing: a job of a kind is queued unless the document's latest one of that
    /// kind still waits or runs; once it has ended, another may be queued.
    @Test(arguments: TestBackend.available) func queueingAgainSkipsAJobThatWaits(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let document = try await queuedDocument(harness)
        #expect(try await !harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .preview), "its preview job waits")
        #expect(try await harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .playback))
        #expect(try await !harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .playback), "queued once")
        let (preview, _) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(try await !harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .preview), "its preview job runs")
        #expect(try await harness.queue.complete(preview, recording: JobOutcome(previewStatus: .ready)))
        #expect(try await harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .preview))
        #expect(try await harness.queue.latestJob(documentID: document.documentID)?.status == .queued)
        #expect(
            try await harness.pipeline.store.index.document(id: document.documentID)?.jobStatus == .queued, "the document shows its new preview job")
    }
}

@Suite struct MethodTests {
    @Test func otherMethodsOnKnownPathsAre405WithAllow() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            for (uri, method, allow) in [
                ("/v1/documents", HTTPRequest.Method.put, "POST, GET"), ("/v1/stats", .delete, "GET"),
                ("/v1/documents/abc/content", .post, "GET, HEAD"),
                ("/v1/documents/abc/preview", .put, "GET"), ("/healthz", .trace, "GET")
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                    #expect(response.headers[.allow] == allow)
                    let code = try errorCode(response)
                    #expect(code == "method_not_allowed")
                }
            }
            try await client.execute(uri: "/no/such/route", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}

@Suite struct JobArrivalsTests {
    /// An idle worker waiting on arrivals wakes when a job is announced, not at its next poll,
    /// also when the announcement comes before its wait began (after it looked for a job).
    @Test func anAnnouncementWakesAWaitingWorker() async throws {
        let arrivals = JobArrivals()
        let seen = arrivals.announcements
        async let waited = arrivals.wait(since: seen, upTo: .seconds(3600))
        try await Task.sleep(for: .milliseconds(50))  // either order is tested: the announcement after the wait began, or before
        arrivals.announce()
        #expect(await waited == .announced)
        let missed = arrivals.announcements
        arrivals.announce()
        #expect(await arrivals.wait(since: missed, upTo: .seconds(3600)) == .announced)
    }

    @Test func withoutAnnouncementTheWaitEndsAtItsTimeout() async {
        let arrivals = JobArrivals()
        #expect(await arrivals.wait(since: arrivals.announcements, upTo: .milliseconds(50)) == .timedOut)
        // A timeout that fires before the wait is registered still ends it.
        #expect(await arrivals.wait(since: arrivals.announcements, upTo: .zero) == .timedOut)
    }
}
