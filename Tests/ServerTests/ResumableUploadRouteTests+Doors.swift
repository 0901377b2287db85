import Crypto
import Foundation
import Logging
import PreviewComposition
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// The doors beside the two protocols: older draft versions, a plain form, a request that ends another's work, another host.
extension ResumableUploadRouteTests {
    /// Interop versions 7 and 8 only with the setting (then the upload's life is `max-age`).
    @Test func laterDraftVersionsBehindTheSetting() async throws {
        for latest in [false, true] {
            let harness = try await Harness(token: Self.token) { $0.uploadDraftLatest = latest }
            defer { harness.folder.remove() }
            try await harness.test { client in
                let headers = Self.headers(["Upload-Draft-Interop-Version": "8", "Upload-Complete": "?0"])
                try await client.execute(uri: "/v1/uploads?owner=ana&filename=a.jpg", method: .post, headers: headers) { response in
                    if latest {
                        #expect(response.status == .created && Self.field(response, "Upload-Limit")?.contains("max-age=") == true)
                    } else {
                        #expect(response.status == .badRequest, "version 8 is not spoken without the setting")
                    }
                }
            }
        }
    }

    /// A form sent with the draft's fields is read whole, as ever: the draft resumes a body that is the file itself.
    @Test func aFormIsAnOrdinaryUpload() async throws {
        let harness = try await Harness(token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let body = multipart(
                boundary: "b", fields: ["owner": "ana"], file: ("a.pdf", Array(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))))
            let headers = Self.headers([
                "Content-Type": "multipart/form-data; boundary=b", "Upload-Draft-Interop-Version": "6", "Upload-Complete": "?1"
            ])
            try await client.execute(uri: "/v1/documents", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .accepted && Self.field(response, "Upload-Draft-Interop-Version") == nil)
            }
        }
    }

    /// Only a request for an upload ends the one at work on it: one for an upload that is not there,
    /// or that came in through the other door, is refused and ends no one (two fuzzed requests for
    /// upload `0` used to close each other's connections without an answer). Reading the offset
    /// ends the appender and waits until it has let go.
    @Test func onlyARequestForTheUploadEndsTheOneAtWorkOnIt() async throws {
        let harness = try await Harness(token: Self.token)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let session = try await documents.createUpload(owner: "ana", client: "127.0.0.1", front: .draft, fields: ["filename": "a.jpg"], length: nil)
        let (stops, stopped) = AsyncStream.makeStream(of: Void.self)
        let holder = try await documents.claimUpload(session.id, front: .draft) { stopped.yield() }
        await #expect(throws: UploadRefusal.notFound) { try await documents.claimUpload(session.id, front: .tus) {} }
        await #expect(throws: UploadRefusal.notFound) { try await documents.claimUpload("0", front: .draft) {} }
        await #expect(throws: UploadRefusal.notFound) { try await documents.settledUpload("0", front: .draft) }
        await #expect(throws: UploadRefusal.notFound) { try await documents.settledUpload(session.id, front: .tus) }
        stopped.finish()
        var ends = 0
        for await _ in stops { ends += 1 }
        #expect(ends == 0, "no refused request ended the holder")

        await holder.release()

        let (appenderStops, appenderStopped) = AsyncStream.makeStream(of: Void.self)
        let appender = try await documents.claimUpload(session.id, front: .draft) { appenderStopped.yield() }
        async let read = documents.settledUpload(session.id, front: .draft)
        var ended = appenderStops.makeAsyncIterator()
        #expect(await ended.next() != nil, "reading the offset ends the appender")
        await appender.release()
        let settled = try await read
        #expect(settled.received == 0 && settled.appender == nil, "the offset is read once no request appends")
    }

    /// Two hosts on one PostgreSQL and one bucket, each with a store folder of its own: an upload
    /// begun on one resumes on the other, whose parts it fetches from the bucket's staging, and
    /// completes as the document of exactly the bytes sent; its staged objects are gone after.
    @Test(.enabled(if: TestBackend.available.contains(.postgres)), arguments: TestBlobs.available.filter { $0 != .folder })
    func anUploadResumesOnAnotherHost(blobs: TestBlobs) async throws {
        let address = try #require(try await TestBackend.postgres.freshDatabase())
        let bucket = try blobs.fresh()
        let (first, second) = (try TemporaryFolder(), try TemporaryFolder())
        defer { second.remove() }
        let open = { (folder: TemporaryFolder) in
            try await StoreBackend(root: folder.url, database: address, blobs: bucket, offload: .forTests, logger: Logger(label: "test"))
        }
        let hostA = try Harness(opened: try await open(first), folder: first, token: Self.token)
        let hostB = try Harness(opened: try await open(second), folder: second, token: Self.token)
        defer { hostA.folder.remove() }
        let file = Array(try Data(contentsOf: Fixtures.sample("image-cmyk.jpg")))
        let tus = ["Tus-Resumable": "1.0.0"]
        let location = try await hostA.test { client in
            let location = try await client.execute(
                uri: "/v1/uploads/tus?owner=ana&filename=photo.jpg", method: .post,
                headers: Self.headers(tus.merging(["Upload-Length": "\(file.count)"]) { $1 })
            ) { response in
                try Self.path(response.headers[.location])
            }
            try await client.execute(
                uri: location, method: .patch,
                headers: Self.headers(tus.merging(["Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"]) { $1 }),
                body: ByteBuffer(bytes: file[..<400_000])
            ) { #expect($0.status == .noContent) }
            return location
        }
        try await hostB.test { client in
            try await client.execute(uri: location, method: .head, headers: Self.headers(tus)) { response in
                #expect(Self.field(response, "Upload-Offset") == "400000")
            }
            let id = try await client.execute(
                uri: location, method: .patch,
                headers: Self.headers(
                    tus.merging([
                        "Content-Type": "application/offset+octet-stream",
                        "Upload-Offset": "400000"
                    ]) { $1 }),
                body: ByteBuffer(bytes: file[400_000...])
            ) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try #require(Self.field(response, "DocPreview-Document-ID"))
            }
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: Self.bearer) { response in
                #expect(Array(response.body.readableBytesView) == file, "the document is the bytes sent, across the two hosts")
            }
        }
        #expect(try await hostB.server.documents.stagedUploadParts().isEmpty, "no staged part is left")
    }
}
