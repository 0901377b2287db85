import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewServer
import PreviewStore
import PreviewTestSupport
import Testing

/// A paged document's text, read by the text job that follows its preview job, on both backends:
/// served page by page as plain text or with word boxes, shared by a second upload of the same
/// bytes, gone with the document after `gc`; refused for kinds without words (a video).
@Suite struct TextRouteTests {
    /// The rows of `page_texts` in `index`.
    static func pageRows(_ index: any DocumentIndex) async throws -> Int {
        try await index.runPlan(serializing: nil) { .statement("SELECT COUNT(*) AS n FROM page_texts") { .done(Int($0.first?.integer("n") ?? -1)) } }
    }

    static func upload(_ client: any TestClientProtocol, _ name: String, as filename: String) async throws -> String {
        try await client.execute(uri: "/v1/documents?filename=\(filename)&owner=ana&title=\(filename)", method: .post, body: try sample(name)) {
            #expect($0.status == .accepted)
            return try #require(try json($0)["document_id"] as? String)
        }
    }

    /// Issue 65, item 9: a small file that draws the same text on page after page puts at most
    /// its word budget in the index (one word a byte of the file, at least 50,000), and says it was
    /// cut short; a JSON answer carries at most ``TextController/maxWordsPerAnswer`` words and
    /// names the page the next one starts at.
    @Test func aDocumentsTextCostsTheIndexWhatItsSizeAllows() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        let pdf = TextPDF.repeated(pages: 120)
        #expect(pdf.count < 30_000, "a small file")
        try await harness.test { client in
            let id = try await client.execute(uri: "/v1/documents?filename=dense.pdf&owner=ana", method: .post, body: ByteBuffer(bytes: pdf)) {
                try #require(try json($0)["document_id"] as? String)
            }
            try await harness.drainQueue()
            let first = try await client.execute(uri: "/v1/documents/\(id)/text", method: .get, headers: [.accept: "application/json"]) {
                try json($0)
            }
            let pageCount = try #require(first["page_count"] as? Int)
            let perPage = try #require(((first["pages"] as? [[String: Any]])?.first?["words"] as? [Any])?.count)
            #expect(first["truncated"] as? Bool == true && pageCount < 120, "stopped at the budget: \(pageCount) pages")
            #expect((pageCount - 1) * perPage <= DocumentText.minimumWords, "\(pageCount) pages of \(perPage) words")
            let pages = try #require(first["pages"] as? [[String: Any]])
            #expect(pages.count * perPage <= TextController.maxWordsPerAnswer + perPage, "one answer's words are bounded")
            let next = try #require(first["next_page"] as? Int)
            #expect(next == pages.count + 1)
            let second = try await client.execute(uri: "/v1/documents/\(id)/text?from=\(next)", method: .get, headers: [.accept: "application/json"])
            {
                try json($0)
            }
            #expect((second["pages"] as? [[String: Any]])?.first?["page"] as? Int == next)
        }
    }

    /// Issue 65, item 9: a document's text and its search are paced per owner (the document
    /// service's token), and per address too (a signed-in browser), so one caller cannot keep the
    /// texts busy for everyone; the service is never paced by its address.
    @Test func textReadsArePacedPerOwnerAndPerAddress() async throws {
        let harness = try await Harness(token: SharesTests.token)
        defer { harness.folder.remove() }
        let bearer = SharesTests.bearer
        try await harness.test { client in
            var ids: [String: String] = [:]
            for owner in ["ana", "ben"] {
                ids[owner] = try await client.execute(
                    uri: "/v1/documents?filename=letter.pdf&owner=\(owner)", method: .post, headers: bearer,
                    body: try sample("document-5-pages.pdf")
                ) { try #require(try json($0)["document_id"] as? String) }
            }
            try await harness.drainQueue()
            let (ana, ben) = (ids["ana"]!, ids["ben"]!)
            for index in 0..<40 {
                let path = index % 2 == 0 ? "/v1/documents/\(ana)/text" : "/v1/documents/\(ana)/search?q=sample"
                try await client.execute(uri: path, method: .get, headers: bearer) { #expect($0.status == .ok, "\(index)") }
            }
            try await client.execute(uri: "/v1/documents/\(ana)/text", method: .get, headers: bearer) { response in
                #expect(response.status == .tooManyRequests && response.headers[.retryAfter] != nil, "the owner's pace")
            }
            try await client.execute(uri: "/v1/documents/\(ben)/text", method: .get, headers: bearer) { #expect($0.status == .ok, "another owner's") }
            harness.clock.advance(by: .seconds(5))
            let cookie = try await client.execute(
                uri: "/ui/signin", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(SharesTests.token)&return=%2F")
            ) { response in
                try #require(response.headers[.setCookie].map { String($0.split(separator: ";")[0]) })
            }
            for index in 0..<40 {
                try await client.execute(uri: "/v1/documents/\(index % 2 == 0 ? ana : ben)/text", method: .get, headers: [.cookie: cookie]) {
                    #expect($0.status == .ok, "\(index)")
                }
            }
            try await client.execute(uri: "/v1/documents/\(ben)/text", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .tooManyRequests, "the address's pace, though the owner's has room")
            }
            try await client.execute(uri: "/v1/documents/\(ben)/text", method: .get, headers: bearer) {
                #expect($0.status == .ok, "the service's is its owners'")
            }
        }
    }

    @Test(arguments: TestBackend.available) func aPDFsTextPageByPage(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Self.upload(client, "document-5-pages.pdf", as: "letter.pdf")
            try await client.execute(uri: "/v1/documents/\(id)/text", method: .get) { response in
                #expect(response.status == .accepted && response.headers[.retryAfter] == "2", "not read before its jobs run")
            }
            // A page marked with its hits waits for the text, and says so as /text does (not the preview's status).
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&highlight=Sample", method: .get) { response in
                #expect(response.status == .accepted && response.headers[.retryAfter] == "2")
                let status = try json(response)["status"] as? String
                #expect(status == "pending")
            }
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(id)/text", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "text/plain; charset=utf-8")
                let pages = String(buffer: response.body).split(separator: "\u{0C}").map { $0.trimmingCharacters(in: .newlines) }
                #expect(pages.count == 5 && pages[1] == "Page 2\n\nDocPreview sample, 5 pages")
            }
            try await client.execute(uri: "/v1/documents/\(id)/text?page=3", method: .get, headers: [.accept: "application/json"]) { response in
                let body = try json(response)
                #expect(body["page_count"] as? Int == 5 && body["unread_pages"] as? [Int] == [])
                let pages = try #require(body["pages"] as? [[String: Any]])
                #expect(pages.count == 1 && pages[0]["page"] as? Int == 3 && pages[0]["text"] as? String == "Page 3\n\nDocPreview sample, 5 pages")
                let words = try #require(pages[0]["words"] as? [[String: Any]])
                #expect(words.first?["text"] as? String == "Page" && (words.first?["box"] as? [Double])?.count == 4)
            }
            try await client.execute(uri: "/v1/documents/\(id)/search?q=SAMPLE,%205", method: .get) { response in
                let body = try json(response)
                let hits = try #require(body["hits"] as? [[String: Any]])
                #expect(body["count"] as? Int == 5 && hits.map { $0["page"] as? Int } == [1, 2, 3, 4, 5], "one hit a page, in order")
                #expect((hits.first?["rects"] as? [[Double]])?.count == 1, "one box around the two words it covers on their line")
                #expect((hits.first?["snippet"] as? [String: String])?["match"] == "sample, 5")
            }
            try await client.execute(uri: "/v1/documents/\(id)/search?q=page&limit=2", method: .get) { response in
                let count = try json(response)["count"] as? Int
                #expect(count == 2)
            }
            for query in ["p", "page%00", "pa%04ge"] {
                try await client.execute(uri: "/v1/documents/\(id)/search?q=\(query)", method: .get) { #expect($0.status == .badRequest, "\(query)") }
            }
            // A page with its hits marked is a preview of its own; without a hit, it is the plain page.
            func etag(_ query: String) async throws -> String? {
                try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&format=png\(query)", method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "image/png", "\(query)")
                    return response.headers[.eTag]
                }
            }
            let (plain, marked) = (try await etag(""), try await etag("&highlight=Sample"))
            let (lower, upper, missing) = (
                try await etag("&highlight=sample"), try await etag("&highlight=SAMPLE"), try await etag("&highlight=chemistry")
            )
            #expect(marked != plain && lower == marked && upper == marked && missing == plain)
            for highlight in ["s", "sample%00"] {
                try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&highlight=\(highlight)", method: .get) {
                    #expect($0.status == .badRequest, "\(highlight)")
                }
            }
            try await client.execute(uri: "/v1/documents/\(id)/text?page=6", method: .get) { response in
                let error = try json(response)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "page_out_of_range")
            }
            try await client.execute(uri: "/v1/documents/\(id)/text?page=0", method: .get) { #expect($0.status == .badRequest) }
            // The same bytes again: their text is read already.
            let again = try await Self.upload(client, "document-5-pages.pdf", as: "copy.pdf")
            try await client.execute(uri: "/v1/documents/\(again)/text?page=1", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body) == "Page 1\n\nDocPreview sample, 5 pages")
            }
            #expect(try await Self.pageRows(harness.pipeline.store.index) == 5, "one row per page, shared by both documents")
            let video = try await Self.upload(client, "video-h264.mp4", as: "clip.mp4")
            try await client.execute(uri: "/v1/documents/\(video)/text", method: .get) { response in
                let error = try json(response)["error"] as? [String: Any]
                #expect(response.status == .unsupportedMediaType && error?["code"] as? String == "unsupported_type")
            }
            for document in [id, again] {
                try await client.execute(uri: "/v1/documents/\(document)", method: .delete) { #expect($0.status == .noContent || $0.status == .ok) }
            }
        }
        _ = try await harness.pipeline.store.collectGarbage(grace: 0, dryRun: false, force: true, logger: Logger(label: "test"))
        #expect(try await Self.pageRows(harness.pipeline.store.index) == 0, "the text goes with the document's bytes")
    }

    /// A document stored without its text (`ingest`, or before text jobs) gets its text job from
    /// `jobs backfill` once, or from the first request for its text.
    @Test func storedDocumentsGetTheirTextJobOnce() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let ingested = await documents.ingest(
            Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(owner: "o", title: "t", filename: "d.pdf"))
        let id = try #require(ingested.documentID)
        #expect(try await documents.backfill().text == 1)
        #expect(try await documents.backfill().text == 0, "its job waits already")
        try await harness.drainQueue()
        #expect(try await documents.backfill().text == 0, "nothing left")
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents/\(id)/text?page=5", method: .get) { #expect($0.status == .ok) }
            let other = await documents.ingest(
                Fixtures.sample("office-letter.rtf"), labels: DocumentLabels(owner: "o", title: "r", filename: "r.rtf"))
            let asked = try #require(other.documentID)
            try await client.execute(uri: "/v1/documents/\(asked)/text", method: .get) { #expect($0.status == .accepted) }
            #expect(try await documents.backfill().text == 0, "asking queued its job")
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(asked)/text", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// Each page image on the detail page, the viewer and a share's page is described by its
    /// page's text (for screen readers), once the text is read; before, by its number alone. The
    /// signed-in pages write their first page (their script makes and describes the others from
    /// the text route, as `detail_page.py` checks); a share's page writes them all.
    @Test func pagesAreDescribedByTheirText() async throws {
        let harness = try await Harness(token: SharesTests.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?filename=a.pdf&title=Transcript&owner=ana", method: .post,
                headers: SharesTests.bearer, body: try sample("document-5-pages.pdf")
            ) {
                try #require(try json($0)["document_id"] as? String)
            }
            // The preview job alone: the pages are shown, their text not read yet.
            let (job, document) = try #require(try await harness.queue.lease(worker: "test", leaseSeconds: 60, kinds: [.preview]))
            _ = try await harness.server.documents.run(job, of: document)
            let before = try await client.execute(uri: "/ui/documents/\(id)", method: .get, headers: SharesTests.bearer) { String(buffer: $0.body) }
            #expect(before.contains("alt=\"Page 1\"") && !before.contains("aria-describedby=\"page-text"))
            try await harness.drainQueue()
            let url = try #require(try await SharesTests.share(client, id, #"{"label": "State University"}"#)["url"] as? String)
            for (page, number) in [("/ui/documents/\(id)", 1), ("/ui/documents/\(id)/view", 1), (url, 2)] {
                let html = try await client.execute(uri: page, method: .get, headers: page == url ? [:] : SharesTests.bearer) {
                    String(buffer: $0.body)
                }
                #expect(html.contains("alt=\"Page \(number)\" aria-describedby=\"page-text-\(number)\""), "\(page)")
                #expect(
                    html.contains("<div class=\"page-text\" id=\"page-text-\(number)\">Page \(number) DocPreview sample, 5 pages</div>"), "\(page)")
            }
            let second = try await client.execute(uri: "/v1/documents/\(id)/text?page=2", method: .get, headers: SharesTests.bearer) {
                String(buffer: $0.body)
            }
            #expect(
                second.split(whereSeparator: \.isWhitespace).joined(separator: " ") == "Page 2 DocPreview sample, 5 pages", "what the script reads")
        }
    }

    /// A share may carry a text its owner chose: its page shows the pages with their hits marked,
    /// by signed URLs that keep the text whole.
    @Test func aSharesPagesShowTheHighlightItsOwnerChose() async throws {
        let harness = try await Harness(token: SharesTests.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await SharesTests.upload(client, harness, "document-5-pages.pdf")
            try await client.execute(
                uri: "/v1/documents/\(id)/shares", method: .post, headers: SharesTests.bearer,
                body: ByteBuffer(string: #"{"label": "Coach", "highlight": "x"}"#)
            ) { #expect($0.status == .badRequest) }
            let made = try await SharesTests.share(client, id, #"{"label": "Coach", "highlight": " Sample, 5 "}"#)
            #expect(made["highlight"] as? String == "Sample, 5")
            let url = try #require(made["url"] as? String)
            let html = try await client.execute(uri: url, method: .get) { String(buffer: $0.body) }
            let pages = SharesTests.sources(html)
            #expect(pages.count == 5 && pages.allSatisfy { $0.contains("&highlight=Sample%2C%205&") }, "\(pages.first ?? "")")
            let marked = try await client.execute(uri: pages[1], method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/jpeg")
                return response.headers[.eTag]
            }
            let plain = try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=1024", method: .get, headers: SharesTests.bearer) {
                $0.headers[.eTag]
            }
            #expect(marked != nil && marked != plain, "the hits are marked")
        }
    }

    @Test func anOfficeDocumentsTextComesFromItsPivot() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Self.upload(client, "office-report.docx", as: "report.docx")
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(id)/text", method: .get) { response in
                #expect(response.status == .ok && !String(buffer: response.body).isEmpty, "\(String(buffer: response.body))")
            }
        }
    }
}
