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
import PreviewTestSupport
import Synchronization
import Testing

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
