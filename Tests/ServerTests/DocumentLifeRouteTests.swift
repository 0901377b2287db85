import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
import PreviewTestSupport
import Testing

/// Uploads `name` from the samples under `query` and returns the document id.
func upload(_ client: any TestClientProtocol, _ name: String, _ query: String) async throws -> String {
    try await client.execute(uri: "/v1/documents?\(query)", method: .post, body: try sample(name)) { response in
        #expect(response.status == .accepted, "\(name)")
        return try #require(try json(response)["document_id"] as? String)
    }
}

@Suite struct DocumentLifeRouteTests {
    @Test(arguments: TestBackend.available) func listingOverHTTP(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            for (index, name) in ["image.webp", "document-5-pages.pdf", "video-h264.mp4"].enumerated() {
                _ = try await upload(client, name, "owner=ana&title=Doc%20\(index)&filename=\(name)")
            }
            _ = try await upload(client, "image-alpha.png", "owner=ben&title=other&filename=a.png")
            var titles: [String] = []
            var cursor = ""
            repeat {
                cursor = try await client.execute(uri: "/v1/documents?owner=ana&sort=title&limit=2\(cursor)", method: .get) { response in
                    #expect(response.status == .ok)
                    let body = try json(response)
                    let documents = try #require(body["documents"] as? [[String: Any]])
                    titles += documents.compactMap { $0["title"] as? String }
                    return (body["next_cursor"] as? String).map { "&cursor=\($0)" } ?? ""
                }
            } while !cursor.isEmpty
            #expect(titles == ["Doc 0", "Doc 1", "Doc 2"])
            try await client.execute(uri: "/v1/documents?q=doc%201&kind=pdf", method: .get) { response in
                let documents = try #require(try json(response)["documents"] as? [[String: Any]])
                #expect(documents.map { $0["title"] as? String } == ["Doc 1"])
                #expect(documents.first?["status"] as? String == "queued")
            }
            let long = String(repeating: "a", count: DocumentLabels.maxTitleLength + 1)
            for bad in ["limit=0", "limit=201", "sort=size", "status=done", "cursor=garbage", "q=%00ab", "q=a%0Ab", "owner=%01", "q=\(long)"] {
                try await client.execute(uri: "/v1/documents?\(bad)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                }
            }
        }
    }

    @Test(arguments: TestBackend.available) func deleteVersionsRestoreAndRelabel(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let first = try await upload(client, "document-5-pages.pdf", "owner=ana&type=resume&title=cv&filename=cv.pdf")
            let second = try await upload(client, "resume.docx", "owner=ana&type=resume&title=cv&filename=cv.docx")
            _ = try await upload(client, "image.webp", "owner=ana&title=photo&filename=photo.webp")
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(first)/versions", method: .get) { response in
                let versions = try #require(try json(response)["versions"] as? [[String: Any]])
                #expect(versions.map { $0["version"] as? Int } == [2, 1])
                #expect(versions.map { $0["current"] as? Bool } == [true, false])
                #expect(versions.last?["document_id"] as? String == first)
                #expect(versions.allSatisfy { ($0["sha256"] as? String)?.count == 64 && $0["uploaded_at"] != nil && $0["size"] is Int })
            }
            // Restore v1: a third version, the PDF's previews already made.
            let restored = try await client.execute(uri: "/v1/documents/\(second)/restore?version=1", method: .post) { response in
                #expect(response.status == .ok)
                let body = try json(response)
                #expect(body["version"] as? Int == 3 && body["status"] as? String == "done" && body["kind"] as? String == "pdf")
                return try #require(body["document_id"] as? String)
            }
            try await client.execute(uri: "/v1/documents/\(restored)/preview", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/documents/\(first)/restore?version=7", method: .post) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/documents/\(first)/restore", method: .post) { #expect($0.status == .badRequest) }

            // Relabel: every version moves; a title in use, control characters, a type that refuses .pdf.
            func patch(_ body: String) async throws -> (HTTPResponse.Status, String?) {
                try await client.execute(
                    uri: "/v1/documents/\(first)", method: .patch, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: body)
                ) { ($0.status, try? errorCode($0)) }
            }
            #expect(try await patch(#"{"title":"CV 2026"}"#).0 == .ok)
            #expect(try await patch(#"{"title":"photo","type":""}"#) == (.conflict, "conflict"))
            #expect(try await patch(#"{"title":"a\u0007b"}"#).0 == .badRequest)
            #expect(try await patch(#"{"type":"highlight_video"}"#) == (.unsupportedMediaType, "extension_not_allowed"))
            #expect(try await patch(#"{"type":"nope"}"#).0 == .badRequest)
            #expect(try await patch("not json").0 == .badRequest)
            try await client.execute(uri: "/v1/documents/\(restored)", method: .get) { response in
                let title = try json(response)["title"] as? String
                #expect(title == "CV 2026")
            }

            // Delete: statistics drop by exactly its versions' bytes, at once; a second delete is 404.
            let before = try await harness.pipeline.store.index.statistics(owner: "ana")
            let sizes = try await harness.pipeline.store.index.versions(of: first).map(\.size).reduce(0, +)
            try await client.execute(uri: "/v1/documents/\(second)?version=2", method: .delete) { response in
                let deleted = try json(response)["deleted_versions"] as? [Int]
                #expect(response.status == .ok && deleted == [2])
            }
            try await client.execute(uri: "/v1/documents/\(second)", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/documents/\(first)", method: .delete) { response in
                let deleted = try json(response)["deleted_versions"] as? [Int]
                #expect(deleted == [1, 3])
            }
            try await client.execute(uri: "/v1/stats?owner=ana", method: .get) { response in
                let body = try json(response)
                #expect(body["documents"] as? Int == before.documents - 1)
                #expect(body["logical_bytes"] as? Int == before.logicalBytes - sizes)
            }
            for uri in ["/v1/documents/\(first)", "/v1/documents/\(first)/versions", "/v1/documents/\(first)/content"] {
                try await client.execute(uri: uri, method: uri.hasSuffix("versions") ? .get : .delete) { response in
                    #expect(response.status == (uri.hasSuffix("content") ? .methodNotAllowed : .notFound), "\(uri)")
                }
            }
        }
    }

    /// A job that is running when its document is deleted ends without bringing the document back.
    @Test(arguments: TestBackend.available) func aDeleteRacingARunningJobWins(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await upload(client, "document-5-pages.pdf", "owner=ana&title=letter&filename=l.pdf")
            let (job, document) = try await #require(try harness.queue.lease(worker: "test", leaseSeconds: 60))
            try await client.execute(uri: "/v1/documents/\(id)", method: .delete) { response in
                let cancelled = try json(response)["cancelled_jobs"] as? Int
                #expect(cancelled == 1)
            }
            do throws(PreviewError) { try await harness.pipeline.process(document) } catch { Issue.record("\(error)") }
            #expect(try await harness.queue.complete(job) == false, "the job's outcome is fenced off")
            #expect(try await harness.pipeline.store.index.document(id: id) == nil)
            #expect(try await harness.pipeline.store.index.statistics().documents == 0)
            #expect(try await harness.queue.lease(worker: "test", leaseSeconds: 60) == nil)
            try await client.execute(uri: "/v1/documents/\(id)", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test(arguments: TestBackend.available) func originalsWithRanges(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let bytes = try Data(contentsOf: Fixtures.sample("video-h264.mp4"))
        let size = bytes.count
        try await harness.test { client in
            let id = try await upload(client, "video-h264.mp4", "owner=ana&title=film&filename=Sp%C3%A4t%20%22final%22.mp4")
            let uri = "/v1/documents/\(id)/content"
            let etag = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == bytes)
                #expect(response.headers[.contentType] == "video/mp4")
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(
                    response.headers[.contentDisposition] == #"inline; filename="Sp_t _final_.mp4"; filename*=UTF-8''Sp%C3%A4t%20%22final%22.mp4"#)
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                return try #require(response.headers[.eTag])
            }
            #expect(etag == "\"\(BlobHash.of(Array(bytes)).hex)\"")
            try await client.execute(uri: uri, method: .head) { response in
                #expect(response.status == .ok && response.body.readableBytes == 0)
                #expect(response.headers[.contentLength] == "\(size)")
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag]) { #expect($0.status == .notModified) }
            func ranged(_ range: String, ifRange: String? = nil) async throws -> (HTTPResponse.Status, String?, Data) {
                var headers: HTTPFields = [.range: range]
                if let ifRange { headers[.ifRange] = ifRange }
                return try await client.execute(uri: uri, method: .get, headers: headers) {
                    ($0.status, $0.headers[.contentRange], Data(buffer: $0.body))
                }
            }
            #expect(try await ranged("bytes=0-0") == (.partialContent, "bytes 0-0/\(size)", bytes.prefix(1)))
            #expect(try await ranged("bytes=-10") == (.partialContent, "bytes \(size - 10)-\(size - 1)/\(size)", bytes.suffix(10)))
            #expect(try await ranged("bytes=100-") == (.partialContent, "bytes 100-\(size - 1)/\(size)", bytes.dropFirst(100)))
            #expect(try await ranged("bytes=10-\(size * 2)").1 == "bytes 10-\(size - 1)/\(size)", "an end past the file is clamped")
            #expect(try await ranged("bytes=\(size)-").0 == .rangeNotSatisfiable)
            #expect(try await ranged("bytes=\(size)-").1 == "bytes */\(size)")
            #expect(try await ranged("bytes=-0").0 == .rangeNotSatisfiable)
            #expect(try await ranged("bytes=0-1,5-6") == (.ok, nil, bytes), "several ranges: the whole body")
            #expect(try await ranged("bytes=5-1").0 == .ok, "a range that does not parse is ignored")
            #expect(try await ranged("bytes=0-0", ifRange: "\"other\"").0 == .ok, "If-Range of another version: the whole body")
            try await client.execute(uri: uri + "?download=1", method: .head) { response in
                #expect(response.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            }
            try await client.execute(uri: "/v1/documents/nope/content", method: .get) { #expect($0.status == .notFound) }
        }
    }

    /// The viewer: the page count first, the first page's image (the others made as they approach), versions, and deletion
    /// behind a confirmation and the CSRF token.
    @Test func viewerPageAndItsDeleteFlow() async throws {
        let harness = try await Harness(token: "s3cret")
        defer { harness.folder.remove() }
        let bearer: HTTPFields = [.authorization: "Bearer s3cret"]
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?owner=ana&title=%3Cb%3Eletter&filename=l.pdf", method: .post,
                headers: bearer, body: try sample("document-5-pages.pdf")
            ) {
                try #require(try json($0)["document_id"] as? String)
            }
            let other = try await client.execute(
                uri: "/v1/documents?owner=ana&title=photo&filename=p.webp", method: .post,
                headers: bearer, body: try sample("image.webp")
            ) {
                try #require(try json($0)["document_id"] as? String)
            }
            try await harness.drainQueue()
            try await client.execute(uri: "/ui/documents/\(id)", method: .get) { response in
                #expect(response.status == .seeOther, "a browser without a session is sent to the sign-in form")
                #expect(response.headers[.location] == "/ui/signin?return=%2Fui%2Fdocuments%2F\(id)")
            }
            let html = try await client.execute(uri: "/ui/documents/\(id)", method: .get, headers: bearer) { response in
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                return String(buffer: response.body)
            }
            #expect(html.contains("<p class=\"pagecount\">5 pages</p>"))
            #expect(html.range(of: "pagecount")!.lowerBound < html.range(of: "<img")!.lowerBound, "the page count comes first")
            #expect(
                html.components(separatedBy: "<img ").count - 1 == 1 && html.contains("<img loading=\"eager\" fetchpriority=\"high\""),
                "the first page is written, asked for first")
            #expect(html.contains("src=\"/v1/documents/\(id)/preview?format=webp&amp;page=1&amp;width=1024\""))
            #expect(
                html.contains("data-pages=\"5\"") && html.contains("data-page-src=\"/v1/documents/\(id)/preview?format=webp&amp;page=\""),
                "the others are made by the script from page 1's address")
            #expect(html.contains("&lt;b&gt;letter") && !html.contains("<b>letter"), "the title is text")
            #expect(html.contains("href=\"/ui/documents/\(other)\""), "the owner's other document is a step away")
            #expect(html.contains("href=\"/v1/documents/\(id)/content?download=1\""))

            // A browser signs in; its delete form carries the session's CSRF token in a hidden field.
            let cookie = try await client.execute(
                uri: "/ui/signin", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=s3cret&return=%2F")
            ) {
                String(try #require($0.headers[.setCookie]).split(separator: ";")[0])
            }
            let confirmation = try await client.execute(uri: "/ui/documents/\(id)/delete", method: .get, headers: [.cookie: cookie]) {
                String(buffer: $0.body)
            }
            #expect(confirmation.contains("<form method=\"post\" action=\"/ui/documents/\(id)/delete\">"))
            let csrf = try #require(confirmation.firstMatch(of: /name="csrf" value="([A-Za-z0-9_-]+)"/)?.output.1)
            try await client.execute(uri: "/ui/documents/\(id)/delete", method: .post, headers: [.cookie: "docpreview_session=x"]) { response in
                #expect(response.status == .unauthorized, "no session, no delete")
            }
            let form: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: "/ui/documents/\(id)/delete", method: .post, headers: form, body: ByteBuffer(string: "csrf=x\(csrf)")) {
                #expect($0.status == .forbidden, "a wrong CSRF token")
            }
            try await client.execute(uri: "/ui/documents/\(id)/delete?csrf=\(csrf)", method: .post, headers: [.cookie: cookie]) {
                #expect($0.status == .forbidden, "the token in the URL does not count")
            }
            try await client.execute(uri: "/ui/documents/\(id)/delete", method: .post, headers: form, body: ByteBuffer(string: "csrf=\(csrf)")) {
                response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/?owner=ana")
            }
            try await client.execute(uri: "/ui/documents/\(id)", method: .get, headers: bearer) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/?owner=ana", method: .get, headers: bearer) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("href=\"/ui/documents/\(other)\"") && !page.contains(id), "tiles link to the viewer")
            }
        }
    }
}
