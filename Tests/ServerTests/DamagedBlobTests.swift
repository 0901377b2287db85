import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// Blobs damaged on disk are never served as if intact, and storing the same bytes again repairs them.
@Suite struct DamagedBlobTests {
    /// Overwrites the blob `hash` of `harness`'s store (blobs are read-only) with `bytes`, or removes it.
    private func damage(_ harness: Harness, _ hash: BlobHash, with bytes: [UInt8]?) async throws {
        let file = try await harness.pipeline.store.blobs.localFile(for: hash)
        chmod(file.path, 0o600)
        if let bytes { try Data(bytes).write(to: file) } else { try FileManager.default.removeItem(at: file) }
    }

    @Test(arguments: TestBackend.available) func aDamagedPreviewIsRenderedAgain(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await client.execute(uri: "/v1/documents?filename=a.pdf", method: .post, body: try sample("document-5-pages.pdf")) {
                try #require(try json($0)["document_id"] as? String)
            }
            try await harness.drainQueue()
            let (etag, body) = try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=300", method: .get) {
                (try #require($0.headers[.eTag]), Data(buffer: $0.body))
            }
            let hash = try #require(BlobHash(hex: String(etag.dropFirst().dropLast())))
            for damaged: [UInt8]? in [Array(repeating: 0, count: body.count), [], nil] {
                await harness.previewsKept()
                try await damage(harness, hash, with: damaged)
                try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=300", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.eTag] == etag)
                    #expect(Data(buffer: response.body) == body, "the preview served is the intact one")
                }
                // A missing blob is a cache miss: rendered for the request, stored after its answer.
                await harness.previewsKept()
                #expect(try await harness.pipeline.store.blobs.verify(hash), "the blob was rewritten")
            }
        }
    }

    @Test(arguments: TestBackend.available) func aDamagedOriginalIsNeverServedWhole(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let original = Array(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))
        try await harness.test { client in
            let (id, sha) = try await client.execute(uri: "/v1/documents?filename=a.pdf", method: .post, body: ByteBuffer(bytes: original)) {
                let body = try json($0)
                let hex = try #require(body["sha256"] as? String)
                return (try #require(body["document_id"] as? String), try #require(BlobHash(hex: hex)))
            }
            var flipped = original
            flipped[original.count / 2] ^= 0xFF
            try await damage(harness, sha, with: flipped)
            for range in [nil, "bytes=0-99"] {
                try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: range.map { [.range: $0] } ?? [:]) { response in
                    #expect(response.status == .internalServerError, "a damaged original is refused before any header")
                    let code = try errorCode(response); #expect(code == "store_damaged")
                }
            }
            try await damage(harness, sha, with: Array(original.prefix(100)))
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                #expect(response.status == .internalServerError, "a short original is refused before any header")
                let code = try errorCode(response); #expect(code == "store_damaged")
            }
            // The same bytes uploaded again repair the blob.
            try await client.execute(uri: "/v1/documents?filename=b.pdf&title=again", method: .post, body: ByteBuffer(bytes: original)) {
                #expect($0.status == .accepted)
            }
            #expect(try await harness.pipeline.store.blobs.verify(sha))
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Array(Data(buffer: response.body)) == original)
            }
        }
    }
}

/// From SIGTERM on, nothing new is accepted: requests get 503 with `Retry-After` and `Connection: close`.
@Suite struct DrainTests {
    @Test func aDrainingServerRefusesNewWork() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            harness.server.drain.begin()
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body) == "draining\n")
            }
            try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, body: try sample("image.webp")) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "5" && response.headers[.connection] == "close")
                let code = try errorCode(response); #expect(code == "unavailable")
            }
        }
        #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty, "nothing was stored while draining")
    }
}
