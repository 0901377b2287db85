import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// The words of paged documents (issue 47): read by a text job after the preview job, and served
/// from the index page by page.
extension DocumentService {
    /// What is known of a document's text: read, with the pages asked for, or still to come.
    package enum TextAnswer: Sendable {
        case ready(DocumentText, pages: [PageTexts.Page])
        /// Its text job has not read it yet (it waits, runs, or was queued now).
        case notYet
    }

    /// The text of `document`'s pages in `range` (every page when nil), with their words when
    /// `words`. A document whose text was
    /// never read (stored before text jobs, or its job's row gone) gets its text job now, once.
    /// Refused for a kind without pages (`unsupported_type`), a page past those read
    /// (`page_out_of_range`), and as its text job failed, or its preview job, when they did.
    package func textAnswer(of document: Document, pages range: ClosedRange<Int>?, words: Bool) async throws -> TextAnswer {
        guard pipeline.readsText(document.kind) else { throw PreviewError(.unsupportedType, "No text is read from \(document.kind.label).") }
        if let stored = try await pipeline.documentText(of: document, pages: range, words: words) {
            if let range, range.lowerBound > stored.text.pageCount {
                let count = stored.text.pageCount
                throw PreviewError(
                    .pageOutOfRange, "The document's text has \(count) page\(count == 1 ? "" : "s"); page \(range.lowerBound) is not among them.")
            }
            return .ready(stored.text, pages: stored.pages)
        }
        if let job = try await queue.latestJob(documentID: document.id, kind: .text), job.status != .done {
            guard job.status == .failed else { return .notYet }
            throw PreviewError(job.errorCode ?? .internal, job.errorMessage ?? "The document's text could not be read.")
        }
        switch document.previewStatus {
        case .pending: return .notYet  // its text job follows its preview job
        case .failed: throw PreviewError(document.errorCode ?? .internal, document.errorMessage ?? "The document could not be read.")
        case .ready, .noPreview:
            if try await queue.queueUnlessWaiting(documentID: document.id, kind: .text) { arrivals?.announce() }
            return .notYet
        }
    }

    /// Every occurrence of `hits`' text in `document`, page by page, at most `limit` (``TextHits``);
    /// nil while its text is still to be read (as ``textAnswer(of:pages:words:)``, which refuses
    /// what it refuses).
    package func search(_ hits: TextHits, in document: Document, limit: Int) async throws -> [TextHits.Hit]? {
        guard case let .ready(_, pages) = try await textAnswer(of: document, pages: nil, words: true) else { return nil }
        // Every word of the document is compared: on the reads lane, not on Swift's few threads.
        return try await offload.run(.reads) {
            var found: [TextHits.Hit] = []
            for page in pages {
                guard let words = page.words, found.count < limit else { continue }
                found += hits.hits(on: words, limit: limit - found.count)
            }
            return found
        }
    }

    /// The plain text of each of `pages` of `document` whose text is read, by page number, for pages
    /// shown to people (their images' description); empty while it is not read, for kinds
    /// without pages, and when it cannot be read now (logged: the page is shown without it).
    package func pageDescriptions(of document: Document, pages: ClosedRange<Int>) async -> [Int: String] {
        guard pipeline.readsText(document.kind) else { return [:] }
        do {
            guard let stored = try await pipeline.documentText(of: document, pages: pages, words: false) else { return [:] }
            return Dictionary(stored.pages.map { ($0.page, $0.text) }, uniquingKeysWith: { first, _ in first })
        } catch {
            pipeline.logger.warning("could not read a document's text for its pages", metadata: ["preview.error": "\(error)"])
            return [:]
        }
    }

    /// The boxes of the words `hits` covers on page `page` of `document`, for a preview that marks
    /// them (``RenderRequest/highlights``): none when the text is not on that page; nil while the
    /// text is still to be read (refused as ``textAnswer(of:pages:words:)`` refuses).
    package func highlightBoxes(of hits: TextHits, in document: Document, page: Int) async throws -> [[Double]]? {
        guard case let .ready(_, pages) = try await textAnswer(of: document, pages: page...page, words: true) else { return nil }
        guard let words = pages.first?.words else { return [] }
        return Array(hits.hits(on: words, limit: RenderRequest.maxHighlights).flatMap(\.rects).prefix(RenderRequest.maxHighlights))
    }
}

/// A search of the whole store (``PageSearch``), each document found shown by its best page's first hit.
extension DocumentService {
    /// A document a store-wide search found.
    public struct StoreHit: Sendable {
        package var document: Document
        /// Its title, description, file name or school holds the text.
        package var inLabels: Bool
        /// How often its pages hold the text (among those read: ``PageSearch/candidatePages``).
        package var occurrences: Int
        /// The first hit on the page that holds the text most often; nil when only its labels do.
        package var hit: TextHits.Hit?
    }

    /// A page of a store-wide search's ranking.
    public struct StoreSearchPage: Sendable {
        public var hits: [StoreHit]
        /// Whether every match was read (else the ranking is among the first the bounds allowed).
        public var complete: Bool
        /// Where the next page starts in the ranking, when there is one.
        package var next: Int?
    }

    /// The most documents one store-wide search ranks.
    package static let maxRankedDocuments = 1_000

    /// The current documents of `owner` (of anyone when nil) of type `type` that hold `hits`' text,
    /// best first (``PageSearch/matches(_:timeout:)``), `limit` from `offset` of the ranking, each
    /// with its best hit. Refuses a text shorter than ``TextHits/storeWideMinimum`` (`bad_request`)
    /// and a search that runs out of its time (`timeout`).
    public func searchStore(_ hits: TextHits, owner: String?, type: String?, limit: Int, offset: Int) async throws -> StoreSearchPage {
        guard hits.needle.count >= TextHits.storeWideMinimum else {
            throw PreviewError(.badRequest, "A search of every document needs at least \(TextHits.storeWideMinimum) characters.")
        }
        let query = PageSearch.Query(
            needle: hits.needle, labelKey: DocumentLabels.titleKey(hits.text), owner: owner, type: type,
            readings: pipeline.textReadings)
        let found: (matches: [PageSearch.Match], complete: Bool)
        do {
            found = try await PageSearch(database: store.index).matches(query)
        } catch is QueryTimedOut {
            throw PreviewError(.timeout, "The search took too long; a longer text finds fewer pages.")
        }
        let ranked = found.matches.prefix(Self.maxRankedDocuments)
        let shown = Array(ranked.dropFirst(offset).prefix(limit))
        let pages = try await PageTexts(database: store.index).words(
            of: shown.compactMap { match in
                match.derivative.flatMap { derivative in match.page.map { (derivative, $0) } }
            })
        let documents = Dictionary(
            try await store.index.documents(ids: shown.map(\.documentID)).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var page: [StoreHit] = []
        for match in shown {
            // A document deleted since the search read it is left out.
            guard let document = documents[match.documentID] else { continue }
            let words = match.derivative.flatMap { derivative in match.page.flatMap { pages[derivative]?[$0] } }
            page.append(
                StoreHit(
                    document: document, inLabels: match.inLabels, occurrences: match.occurrences,
                    hit: words.flatMap { hits.hits(on: $0, limit: 1).first }))
        }
        let end = offset + shown.count
        return StoreSearchPage(
            hits: page, complete: found.complete && found.matches.count <= Self.maxRankedDocuments,
            next: end < ranked.count ? end : nil)
    }
}
