import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewS3
import PreviewStore
import PreviewTestSupport
import Testing

/// Originals in an object store reach clients by byte range, straight from the store: a seek in a
/// player is one ranged GET, never a whole download first.
@Suite(.enabled(if: TestBlobs.available.contains(.s3)))
struct ObjectStoreServingTests {
    @Test func aSeekIsOneRangedGet() async throws {
        let folder = try TemporaryFolder()
        let harness = try Harness(opened: try TestBackend.sqlite.open(root: folder.url, blobs: .s3), folder: folder)
        defer { harness.folder.remove() }
        let storage = try #require(harness.pipeline.store.blobs as? S3BlobStorage)
        let bytes = try Data(contentsOf: Fixtures.sample("video-h264.mp4"))
        let hash = BlobHash.of(Array(bytes))
        try await harness.test { client in
            let id = try await client.execute(uri: "/v1/documents?title=film&filename=film.mp4", method: .post, body: try sample("video-h264.mp4")) {
                try #require(try json($0)["document_id"] as? String)
            }
            // As another host sees it: no local copy.
            storage.cache.forget(hash)
            let before = (get: storage.requests("GET"), head: storage.requests("HEAD"))
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: [.range: "bytes=100000-149999"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100000-149999/\(bytes.count)")
                #expect(Data(buffer: response.body) == bytes[100_000...149_999])
            }
            #expect(storage.requests("GET") == before.get + 1 && storage.requests("HEAD") == before.head, "one ranged GET, nothing else")
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                #expect(response.status == .ok && Data(buffer: response.body) == bytes, "whole, checked against its hash as it streams")
            }
            #expect(storage.requests("GET") == before.get + 2)
            #expect(storage.cacheCounts.misses == 0, "served without a download into the cache")
        }
    }
}
