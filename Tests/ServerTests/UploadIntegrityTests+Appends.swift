import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDocuments
@testable import PreviewS3
@testable import PreviewServer
import PreviewStore
import PreviewTestSupport
import Testing

/// Appends that break off or outlive their upload, abandoned uploads, and a full disk.
extension UploadIntegrityTests {
    /// Item 2: an append whose `Upload-Checksum` covers its whole body keeps nothing when the body
    /// breaks off (the checksum can no longer be verified): the client sends it again from the
    /// same offset, and it is kept whole.
    @Test(arguments: TestBackend.available) func aChecksummedAppendThatBreaksOffKeepsNothing(backend: TestBackend) async throws {
        let harness = try await Self.harness(backend, .folder)
        defer { harness.folder.remove() }
        let file = try Self.file()
        let body = Array(file[..<300_000])
        let checksum = "sha256 " + Data(SHA256.hash(data: body)).base64EncodedString()
        try await harness.live { client in
            let port = try #require(client.port)
            let location = try await Self.create(client, length: file.count)
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            connection.send(
                "PATCH \(location) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\nTus-Resumable: 1.0.0\r\n"
                    + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nUpload-Checksum: \(checksum)\r\n"
                    + "Content-Length: \(body.count)\r\n\r\n")
            connection.send(bytes: Array(body[..<200_000]))
            // Once its bytes are being written, the broken append holds the upload; then it breaks off.
            try await Self.awaitBytes(of: location, harness: harness)
            connection.close()
            // The next append ends the broken one first (it keeps nothing), so it starts at 0.
            try await client.execute(
                uri: location, method: .patch,
                headers: Self.headers(Self.append.merging(["Upload-Offset": "0", "Upload-Checksum": checksum]) { $1 }),
                body: ByteBuffer(bytes: body)
            ) { response in
                #expect(response.status == .noContent, "nothing of the broken body was kept: \(String(buffer: response.body))")
                #expect(ResumableUploadRouteTests.field(response, "Upload-Offset") == "300000")
            }
        }
    }

    /// Item 6: a tus `HEAD` ends an append still running (its connection is closed) before it
    /// answers, so the offset it reports never moves afterwards.
    @Test func aTusHeadEndsTheAppendStillRunning() async throws {
        let harness = try await Self.harness(.sqlite, .folder)
        defer { harness.folder.remove() }
        let file = try Self.file()
        try await harness.live { client in
            let port = try #require(client.port)
            let location = try await Self.create(client, length: file.count)
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            connection.send(
                "PATCH \(location) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\nTus-Resumable: 1.0.0\r\n"
                    + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(file.count)\r\n\r\n")
            connection.send(bytes: Array(file[..<200_000]))
            // Once its bytes are being written, the append holds the upload; the HEAD ends it.
            try await Self.awaitBytes(of: location, harness: harness)
            let reported = try await Self.offset(client, location)
            #expect(connection.waitForClose(seconds: 10), "the append the HEAD ended is closed")
            #expect(try await Self.offset(client, location) == reported, "the offset reported does not move")
        }
    }

    /// Item 5: an object store that stops answering mid-append (a listener that never answers,
    /// as a stopped SeaweedFS is) makes the append a `503` with `Retry-After` and tus's header,
    /// within the connection's idle time, counted as a store fault; the offset the next `HEAD`
    /// reports is what the index counted, and stays so.
    @Test func anObjectStoreThatStopsAnsweringIsA503() async throws {
        let silent = try SilentListener()
        let base = try await Self.harness(.sqlite, .folder)
        defer { base.folder.remove() }
        let local = base.folder.url.appendingPathComponent("s3")
        let storage = try S3BlobStorage(
            location: try S3Location("s3://docpreview/?endpoint=http://127.0.0.1:\(silent.port)"),
            credentials: S3Credentials(accessKey: "stopped", secretKey: "stopped"), localFolder: local, cacheBytes: 1 << 20,
            lock: FileReferenceLock(file: local.appendingPathComponent("reference.lock"), offload: .forTests),
            offload: .forTests, logger: Logger(label: "test"))
        let index: any PortableDatabase = base.pipeline.store.index
        let uploads = ResumableUploads(
            sessions: UploadSessions(database: index), staging: try S3UploadStaging(storage: storage, root: local, offload: .forTests))
        var settings = ServerSettings()
        settings.token = Self.token
        let server = DocumentServer(
            documents: DocumentService(pipeline: base.pipeline, queue: base.queue, uploads: uploads), settings: settings,
            logger: Logger(label: "test"), pages: nil)
        let file = try Self.file()
        try await buildApplication(server).test(.live) { client in
            let location = try await Self.create(client, length: file.count)
            try await client.execute(
                uri: location, method: .patch, headers: Self.headers(Self.append.merging(["Upload-Offset": "0"]) { $1 }),
                body: ByteBuffer(bytes: file)
            ) { response in
                #expect(response.status == .serviceUnavailable && (try? errorCode(response)) == "unavailable", "\(String(buffer: response.body))")
                #expect(response.headers[.retryAfter] != nil && ResumableUploadRouteTests.field(response, "Tus-Resumable") == "1.0.0")
            }
            #expect(try await Self.offset(client, location) == "0")
            try await client.execute(uri: "/metrics", method: .get, headers: SharesTests.bearer) { response in
                #expect(String(buffer: response.body).contains("docpreview_store_faults_total{fault=\"unavailable\",place=\"requests\"}"), "counted")
            }
            #expect(try await Self.offset(client, location) == "0", "the offset reported does not move")
        }
    }

    /// Item 12: abandoned uploads lock no one out: one that received nothing stops counting against
    /// its owner's and address's caps ten minutes after its creation, and any stops counting when it
    /// expires, before `gc` removes it.
    @Test(arguments: TestBackend.available) func abandonedUploadsStopCounting(backend: TestBackend) async throws {
        let harness = try await Self.harness(backend, .folder)
        defer { harness.folder.remove() }
        let caps = harness.server.documents.uploadPolicy.caps
        try await harness.test { client in
            func create(body: ByteBuffer? = nil) async throws -> HTTPResponse.Status {
                let headers = Self.headers(
                    Self.tus.merging(["Upload-Length": "100"]) { $1 }.merging(body == nil ? [:] : ["Content-Type": "application/offset+octet-stream"])
                    { $1 })
                return try await client.execute(
                    uri: "/v1/uploads/tus?owner=ana&filename=a.jpg", method: .post, headers: headers, body: body ?? ByteBuffer()
                ) { $0.status }
            }
            for _ in 0..<caps.sessionsPerClient { #expect(try await create() == .created) }
            #expect(try await create() == .tooManyRequests, "the caps hold while the empty uploads may still be used")
            harness.clock.advance(by: .seconds(caps.emptySeconds + 1))
            let jpeg = ByteBuffer(bytes: try Self.file().prefix(50))
            for _ in 0..<caps.sessionsPerClient { #expect(try await create(body: jpeg) == .created, "empty uploads no longer count") }
            #expect(try await create() == .tooManyRequests)
            harness.clock.advance(by: .seconds(Int(harness.server.documents.uploadPolicy.lifetime) + 1))
            #expect(try await create() == .created, "expired uploads no longer count, before any gc")
        }
    }

    /// Item 6: a full disk during a tus append is tus's answer too: `507` with `Tus-Resumable`
    /// and `Retry-After`.
    @Test func aFullDiskIsATusAnswer() async throws {
        let disk = try SmallDisk.mount(megabytes: 16)
        let harness = try Harness(
            opened: try await TestBackend.sqlite.open(root: disk.url.appendingPathComponent("store")),
            folder: try TemporaryFolder(), token: Self.token)
        defer { harness.folder.remove() }
        let file = try Self.file()
        try await harness.test { client in
            let location = try await Self.create(client, length: file.count)
            disk.fill()
            defer { disk.free() }
            try await client.execute(
                uri: location, method: .patch, headers: Self.headers(Self.append.merging(["Upload-Offset": "0"]) { $1 }),
                body: ByteBuffer(bytes: file)
            ) { response in
                #expect(response.status.code == 507 && ResumableUploadRouteTests.field(response, "Tus-Resumable") == "1.0.0")
                #expect(response.headers[.retryAfter] != nil && (try? errorCode(response)) == "storage_full")
            }
        }
    }
}
