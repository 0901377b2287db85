import Foundation
import PreviewCore
import PreviewDomain

/// What a share draws over everything it serves: its watermark, burned in, and what its redaction
/// finds in the document's words (its text layer, or OCR's reading of a scan or photo), painted out
/// of the pixels and left out of the page's text. Nothing of a redacting share is served before the
/// words are read. Its download is never the original: a paged document is rebuilt as a PDF of its
/// marked pages' pictures (each kept as a derivative, so a second download is assembled from the
/// store), a picture is itself, marked, as a JPEG of up to 4096 px; a video is its marked film
/// (`DocumentService+MarkedFilms.swift`); a sound has none.
extension DocumentService {
    /// What `redaction` finds in document `id`'s first ``maxMarkedPages`` pages, for its owner to see
    /// before a link is made; nil while its text is still to be read.
    package func redactionPreview(_ redaction: Redaction, of id: String) async throws -> [PageRedactions]? {
        try redaction.check()
        let document = try await document(id: id)
        guard pipeline.readsText(document.kind) else { return [] }
        return try await redactions(redaction, of: document, pages: 1...Self.maxMarkedPages)
    }

    /// What `share` draws over page `page` of `document` (1 for a picture): nil while the words its
    /// redaction needs are still to be read (ask again).
    package func marks(of share: ShareRecord, on document: Document, page: Int) async throws -> RenderMarks? {
        try await marks(of: share, on: document, pages: page...page)?[page]
    }

    /// ``marks(of:on:page:)`` of each of `pages`, from one read of their words. A page whose words
    /// could not be read is painted out whole: nothing on it was looked at.
    func marks(of share: ShareRecord, on document: Document, pages: ClosedRange<Int>) async throws -> [Int: RenderMarks]? {
        let watermark = share.watermark.map { Watermark(text: $0) }
        guard let redaction = share.redaction, pipeline.readsText(document.kind) else {
            return Dictionary(uniqueKeysWithValues: pages.map { ($0, RenderMarks(watermark: watermark)) })
        }
        guard let found = try await redactions(redaction, of: document, pages: pages) else { return nil }
        let byPage = Dictionary(found.map { ($0.page, $0) }, uniquingKeysWith: { first, _ in first })
        let whole: [[Double]] = [[0, 0, 1, 1]]
        return Dictionary(uniqueKeysWithValues: pages.map { ($0, RenderMarks(watermark: watermark, redactions: byPage[$0]?.fractions ?? whole)) })
    }

    /// What `redaction` finds on one page: its size (points, or an image's pixels) and findings.
    package struct PageRedactions: Sendable, Encodable {
        package var page: Int
        package var width: Double
        package var height: Double
        package var findings: [Redaction.Finding]
        /// The page's text with what was found left out (for the shared page, not sent to the owner).
        package var text: String

        enum CodingKeys: String, CodingKey { case page, width, height, findings }

        /// The findings' boxes as fractions of the page (``RenderRequest/redactions``).
        var fractions: [[Double]] {
            findings.flatMap(\.boxes).map { box in [box[0] / width, box[1] / height, box[2] / width, box[3] / height] }
        }
    }

    /// What `redaction` finds on `document`'s pages in `pages`; nil while its text is still to be read.
    package func redactions(_ redaction: Redaction, of document: Document, pages: ClosedRange<Int>) async throws -> [PageRedactions]? {
        guard case let .ready(_, read) = try await textAnswer(of: document, pages: pages, words: true) else { return nil }
        return read.compactMap { stored in
            guard let words = stored.words else { return nil }
            let findings = redaction.findings(on: words, number: stored.page)
            return PageRedactions(
                page: stored.page, width: words.width, height: words.height, findings: findings,
                text: Redaction.redactedText(of: words, findings))
        }
    }

    /// The text of each of `pages` of `document` as `share` may show it (what its redaction finds left
    /// out), for its shared page; empty while it is not read, or for kinds without words.
    package func sharedPageDescriptions(of document: Document, share: ShareRecord, pages: ClosedRange<Int>) async -> [Int: String] {
        guard let redaction = share.redaction else { return await pageDescriptions(of: document, pages: pages) }
        guard pipeline.readsText(document.kind), let found = try? await redactions(redaction, of: document, pages: pages) else { return [:] }
        return Dictionary(found.map { ($0.page, $0.text) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `share`'s download of `document` is a marked one (``markedDownload(of:share:)``): with a
    /// watermark always, with a redaction when the document has words to find.
    package func marksContent(of document: Document, for share: ShareRecord) -> Bool {
        share.watermark != nil || (share.redaction != nil && pipeline.readsText(document.kind))
    }

    /// A marked download: its bytes, type and file name.
    package struct MarkedDownload: Sendable {
        package var bytes: [UInt8]
        package var mime: String
        package var fileName: String
    }

    /// The most pages a marked download holds (a longer document is refused: its pages can still be
    /// read on the link's page).
    package static let maxMarkedPages = 100
    /// The width of a page's picture in a marked download: a Letter page at ``PagesPDF/dpi``.
    static let markedPageWidth = 1275

    /// `document` as `share` may hand it out, with its marks; `forbidden` for a kind that cannot carry
    /// them, `too_long` past ``maxMarkedPages``, `unavailable` while its words are still to be read.
    package func markedDownload(of document: Document, share: ShareRecord) async throws -> MarkedDownload {
        let base = (document.filename as NSString).deletingPathExtension
        let count = document.kind.isPaged ? max(1, document.pages ?? 1) : 1
        guard count <= Self.maxMarkedPages else {
            throw PreviewError(.tooLong, "This link's download holds at most \(Self.maxMarkedPages) pages; this document has \(count).")
        }
        guard let marks = try await marks(of: share, on: document, pages: 1...count) else {
            throw PreviewError(.unavailable, "The document's words are still being read; its download is made once they are.")
        }
        func marked(_ request: RenderRequest, page: Int) async throws -> (bytes: [UInt8], width: Int, height: Int) {
            guard let pageMarks = marks[page] else { throw PreviewError(.internal, "Page \(page)'s marks were not found.") }
            let request = pageMarks.applied(to: request)
            let made = try await pipeline.preview(source: document.sha256, kind: document.kind, request: request)
            if let bytes = made.rendered?.bytes { return (bytes, made.record.width, made.record.height) }
            guard let bytes = await intactBytes(of: made.record.resultSha256) else {
                throw PreviewError(.internal, "A page of the download could not be read back from the store; try again.")
            }
            return (bytes, made.record.width, made.record.height)
        }
        if document.kind.isPaged {
            var pages: [PagesPDF.Page] = []
            for number in 1...count {
                let page = try await marked(RenderRequest(page: number, width: Self.markedPageWidth, format: .jpeg, quality: 85), page: number)
                pages.append(PagesPDF.Page(jpeg: page.bytes, width: page.width, height: page.height))
            }
            return MarkedDownload(bytes: PagesPDF.make(pages), mime: FileKind.pdf.mime, fileName: base + ".pdf")
        }
        guard document.kind.category == .image else {
            throw PreviewError(.forbidden, "This link's marks cannot be drawn on \(document.kind.label); it has no download.")
        }
        let picture = try await marked(
            RenderRequest(width: RenderRequest.maxEdge, height: RenderRequest.maxEdge, format: .jpeg, quality: 90), page: 1)
        return MarkedDownload(bytes: picture.bytes, mime: FileKind.jpeg.mime, fileName: base + ".jpg")
    }
}
