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
import PreviewDomain
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
