import Foundation
import PreviewCore
import PreviewStore

/// The words of paged documents (issue 47): read by a text job after the preview job, and served
/// from the index page by page.
extension DocumentService {
    /// What is known of a document's text: read, with the pages asked for, or still to come.
    public enum TextAnswer: Sendable {
        case ready(DocumentText, pages: [PageTexts.Page])
        /// Its text job has not read it yet (it waits, runs, or was queued now).
        case notYet
    }

    /// The text of `document`'s pages in `range` (every page when nil), with their words when
    /// `words`. A document whose text was
    /// never read (stored before text jobs, or its job's row gone) gets its text job now, once.
    /// Refused for a kind without pages (`unsupported_type`), a page past those read
    /// (`page_out_of_range`), and as its text job failed, or its preview job, when they did.
    public func textAnswer(of document: Document, pages range: ClosedRange<Int>?, words: Bool) async throws -> TextAnswer {
        guard pipeline.readsText(document.kind) else { throw PreviewError(.unsupportedType, "No text is read from \(document.kind.label).") }
        if let stored = try await pipeline.documentText(of: document, pages: range, words: words) {
            if let range, range.lowerBound > stored.text.pageCount {
                let count = stored.text.pageCount
                throw PreviewError(.pageOutOfRange, "The document's text has \(count) page\(count == 1 ? "" : "s"); page \(range.lowerBound) is not among them.")
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
    public func search(_ hits: TextHits, in document: Document, limit: Int) async throws -> [TextHits.Hit]? {
        guard case let .ready(_, pages) = try await textAnswer(of: document, pages: nil, words: true) else { return nil }
        var found: [TextHits.Hit] = []
        for page in pages {
            guard let words = page.words, found.count < limit else { continue }
            found += hits.hits(on: words, limit: limit - found.count)
        }
        return found
    }

    /// The plain text of each page of `document` whose text is read, by page number, for pages
    /// shown to people (their images' description); empty while it is not read, for kinds
    /// without pages, and when it cannot be read now (logged: the page is shown without it).
    public func pageDescriptions(of document: Document) async -> [Int: String] {
        guard pipeline.readsText(document.kind) else { return [:] }
        do {
            guard let stored = try await pipeline.documentText(of: document, words: false) else { return [:] }
            return Dictionary(stored.pages.map { ($0.page, $0.text) }, uniquingKeysWith: { first, _ in first })
        } catch {
            pipeline.logger.warning("could not read a document's text for its pages", metadata: ["preview.error": "\(error)"])
            return [:]
        }
    }

    /// The boxes of the words `hits` covers on page `page` of `document`, for a preview that marks
    /// them (``RenderRequest/highlights``): none when the text is not on that page; nil while the
    /// text is still to be read (refused as ``textAnswer(of:pages:words:)`` refuses).
    public func highlightBoxes(of hits: TextHits, in document: Document, page: Int) async throws -> [[Double]]? {
        guard case let .ready(_, pages) = try await textAnswer(of: document, pages: page...page, words: true) else { return nil }
        guard let words = pages.first?.words else { return [] }
        return Array(hits.hits(on: words, limit: RenderRequest.maxHighlights).flatMap(\.rects).prefix(RenderRequest.maxHighlights))
    }
}
