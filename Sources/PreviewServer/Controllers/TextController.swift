import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments

/// `GET /v1/documents/{id}/text[?page=N | ?from=N]`: a paged document's text in reading order, as
/// its text job read it: plain text (pages separated by a form feed), or with `Accept:
/// application/json` each page's words with their boxes, ``maxWordsPerAnswer`` at most an answer;
/// `GET /v1/documents/{id}/search?q=`, the hits of a text in it; and `GET /v1/search?q=`, the
/// documents of the whole store that hold a text. Every one is paced per owner and per address
/// (the document service's per owner only), and the reads that cost a whole document's words run
/// ``wholeTextReads`` at a time.
struct TextController {
    let documents: DocumentService
    /// Store-wide searches: 20 at once, 5 a second, per owner searched and per address.
    let searchPace: Pace
    /// A document's text and its search: 40 at once, 10 a second, per owner and per address.
    let textPace: Pace
    /// Reads of a whole document's words (its search, its JSON text): the rest wait their turn,
    /// suspended, so a flood of them holds neither Swift's threads nor the reads lane.
    let wholeTexts = AsyncGate(width: wholeTextReads)
    static let wholeTextReads = 2

    init(documents: DocumentService) {
        self.documents = documents
        searchPace = Pace(perSecond: 5, burst: 20, clock: documents.clock)
        textPace = Pace(perSecond: 10, burst: 40, clock: documents.clock)
    }

    /// The JSON answer: what was read, and the pages asked for; past ``maxWordsPerAnswer``, the
    /// page the next answer starts at (`?from=`).
    struct TextBody: Encodable {
        var documentID: String
        var pageCount: Int
        var unreadPages: [Int]
        var truncated: Bool
        var pages: [PageTextReport]
        var nextPage: Int?
    }

    /// The most words one JSON answer carries (a page more when its first page holds more), and
    /// the most pages it reads.
    static let maxWordsPerAnswer = 50_000
    static let maxPagesPerAnswer = 100

    /// The `202` answer while the text job has not read the document yet.
    struct NotYet: Encodable {
        var status = "pending"
        var documentID: String
    }

    /// The answer to a search in one document.
    struct HitsBody: Encodable {
        var documentID: String
        var query: String
        /// Hits returned; when it is the limit, there may be more.
        var count: Int
        var hits: [TextHits.Hit]
    }

    /// The most hits one search in a document returns.
    static let maxHits = 1_000

    /// The most documents one page of a store-wide search returns.
    static let maxStoreResults = 50

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/documents/:id/text") { request, context in
            try await text(context.parameters.require("id"), request: request, context: context)
        }
        routes.add(.get, "/v1/documents/:id/search") { request, context in
            try await search(context.parameters.require("id"), request: request, context: context)
        }
        routes.add(.get, "/v1/search") { request, context in
            try await searchStore(request: request, context: context)
        }
    }

    /// `GET /v1/search?q=&owner=&type=&limit=&cursor=`: the current documents that hold `q` in
    /// their pages or labels, best first (``DocumentService/searchStore(_:owner:type:limit:offset:)``),
    /// each with its best hit; `429` past the owner's or the address's pace (``searchPace``). Counted
    /// by outcome in `docpreview_searches_total` (`answered`, `paced`, `timed_out`).
    func searchStore(request: Request, context: ServerContext) async throws -> Response {
        let logger = context.logger
        let range = TextHits.storeWideLengths
        guard let text = request.queryFields.get("q"), let hits = TextHits(query: text), range.contains(hits.text.count) else {
            throw APIError.badRequest(TextHits.requirement("q", lengths: range))
        }
        let (owner, type) = (try request.filter("owner"), try request.filter("type"))
        let limit = try request.number("limit", in: 1...Self.maxStoreResults, default: 20)
        let offset = try request.number("cursor", in: 1...DocumentService.maxRankedDocuments, default: 0)
        do {
            try searchPace.check(context.paceKeys(owner: owner), "searches of these documents")
        } catch {
            ServiceMetrics.searches(outcome: "paced")
            throw error
        }
        let page: DocumentService.StoreSearchPage
        do {
            page = try await documents.searchStore(hits, owner: owner, type: type, limit: limit, offset: offset)
        } catch let error as PreviewError where error.code == .timeout {
            ServiceMetrics.searches(outcome: "timed_out")
            logger.warning(
                "a search ran out of its time", metadata: ["preview.query_length": "\(hits.text.count)", "preview.owner": "\(owner ?? "*")"])
            throw error
        }
        ServiceMetrics.searches(outcome: "answered")
        return try JSON.response(StoreSearchView(query: hits.text, page), headers: [.cacheControl: "private, no-cache"])
    }

    /// `GET /v1/documents/{id}/search?q=&limit=`: every hit of `q` in the document's text, page by
    /// page in reading order, with the words' boxes and a snippet each (for "3 of 12" navigation).
    func search(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        let query = request.queryFields
        guard let text = query.get("q"), let hits = TextHits(query: text) else {
            throw APIError.badRequest(TextHits.requirement("q"))
        }
        let limit = try request.number("limit", in: 1...Self.maxHits, default: 100)
        let document = try await documents.document(id: id)
        try textPace.check(context.paceKeys(owner: document.owner), "reads of these documents' texts")
        guard let found = try await wholeTexts.inside({ try await documents.search(hits, in: document, limit: limit) }) else {
            return try JSON.response(NotYet(documentID: document.id), status: .accepted, headers: [.retryAfter: "2"])
        }
        return try JSON.response(
            HitsBody(documentID: document.id, query: text, count: found.count, hits: found),
            headers: [.cacheControl: "private, no-cache"])
    }

    func text(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        let json = Self.wantsJSON(request)
        var range: ClosedRange<Int>?
        let pages = 1...DocumentText.maxPages
        if let page = request.queryFields.get("page") {
            guard let number = Int(page), pages.contains(number) else { throw APIError.badRequest("page must be in \(pages)") }
            range = number...number
        } else if json {
            // A JSON answer reads a window of pages, from `from`.
            let from = try request.number("from", in: pages, default: 1)
            range = from...min(DocumentText.maxPages, from + Self.maxPagesPerAnswer - 1)
        }
        let document = try await documents.document(id: id)
        try textPace.check(context.paceKeys(owner: document.owner), "reads of these documents' texts")
        let headers: HTTPFields = [.cacheControl: "private, no-cache"]
        let answer = try await wholeTexts.inside { try await documents.textAnswer(of: document, pages: range, words: json) }
        switch answer {
        case .notYet:
            return try JSON.response(NotYet(documentID: document.id), status: .accepted, headers: [.retryAfter: "2"])
        case let .ready(text, pages):
            if json {
                var (reports, words) = ([PageTextReport](), 0)
                for page in pages {
                    guard let read = page.words else { continue }
                    if !reports.isEmpty, words + read.words.count > Self.maxWordsPerAnswer { break }
                    reports.append(PageTextReport(read))
                    words += read.words.count
                }
                let last = reports.last?.page ?? range?.upperBound ?? text.pageCount
                let body = TextBody(
                    documentID: document.id, pageCount: text.pageCount, unreadPages: text.unreadPages, truncated: text.truncated,
                    pages: reports, nextPage: range?.count == 1 || last >= text.pageCount ? nil : last + 1)
                return try JSON.response(body, headers: headers)
            }
            var plain = headers
            plain[.contentType] = "text/plain; charset=utf-8"
            let joined = pages.map(\.text).joined(separator: "\n\u{0C}")
            return Response(status: .ok, headers: plain, body: .init(byteBuffer: ByteBuffer(string: joined)))
        }
    }

    /// Whether the request asks for JSON (`Accept: application/json`) rather than plain text.
    static func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("application/json") } == true
    }
}
