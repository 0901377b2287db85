import Foundation
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// The text of documents, read in renderer children by a text job: a paged document's (PDFs, and
/// office documents through their pivot) page by page from its text layer, a page without one (a
/// scan) and an image (a phone photo) from its pixels by OCR (``OCRReading``, in the configured
/// languages). What was read (``DocumentText``) is a small JSON derivative of the document's bytes,
/// keyed by the source, the reading and the libraries' versions (Poppler's, Tesseract's and its
/// languages' data, and for an office document the conversion's); the pages are rows of the index
/// written with it (``PageTexts``).
extension DocumentPipeline {
    /// Whether documents of `kind` have a text job: paged ones, and images where OCR's languages
    /// are installed.
    package func readsText(_ kind: FileKind) -> Bool {
        guard renderers.renders(kind) else { return false }
        return kind.isPaged || (kind.category == .image && ocrVersion != nil)
    }

    /// The OCR reading's version in the configured languages; nil where their data is not installed
    /// (then scans keep no words, and images have no text job). Asked once a process and languages.
    var ocrVersion: String? {
        let languages = configuration.ocrLanguages
        if let known = Self.ocrVersions.withLock({ $0[languages] }) { return known }
        let version = try? OCRReading.version(languages: languages)
        if version == nil { logger.warning("scans and photos are not read: OCR's data is missing", metadata: ["preview.languages": "\(languages)"]) }
        Self.ocrVersions.withLock { $0[languages] = .some(version) }
        return version
    }

    private static let ocrVersions = Locked([String: String?]())

    /// The stored text of `document`, if its text job has made it: what was read, and the pages in
    /// `range` (every page when nil), with their words when `words`.
    package func documentText(of document: Document, pages range: ClosedRange<Int>? = nil, words: Bool) async throws(PreviewError)
        -> (text: DocumentText, pages: [PageTexts.Page])?
    {
        guard readsText(document.kind), let record = try await cached(key: textKey(document.sha256, kind: document.kind)) else { return nil }
        do {
            let text = try JSONDecoder().decode(DocumentText.self, from: Data(try await store.blobs.read(record.resultSha256)))
            return (text, try await PageTexts(database: store.index).pages(of: record.key, in: range, words: words))
        } catch {
            throw PreviewError.storing(error, "The document's text could not be read.")
        }
    }

    /// Whether `document`'s text has been read (its text derivative is stored).
    package func hasText(_ document: Document) async throws(PreviewError) -> Bool {
        guard readsText(document.kind) else { return false }
        return try await cached(key: textKey(document.sha256, kind: document.kind)) != nil
    }

    /// What a text job comes to: the text of every page of `document` (up to
    /// ``DocumentText/maxPages`` and ``DocumentText/maxWords``, and as many as five jobs' time
    /// allows), found in the derivative
    /// cache (the same bytes are read once) or read now, one page per call in a renderer child,
    /// each within the page budget; a page that cannot be read is listed as unread and the rest go
    /// on. Its derivative is returned for the job's transaction.
    package func textOutcome(of document: Document) async -> JobOutcome {
        do throws(PreviewError) {
            guard readsText(document.kind) else { throw PreviewError(.unsupportedType, "No text is read from \(document.kind.label).") }
            let key = textKey(document.sha256, kind: document.kind)
            if try await cached(key: key) != nil { return JobOutcome(previewStatus: nil) }
            var text = DocumentText(pageCount: 0, truncated: false)
            var read: [PageText] = []
            if document.kind.category == .image {
                let source = try await localPath(of: document.sha256)
                read.append(
                    try await Self.page(1, unreadIn: &text) { () async throws(PreviewError) in
                        try await renderers.ocr(of: source, kind: document.kind, page: 1, languages: configuration.ocrLanguages, on: offload)
                    })
            } else {
                (text, read) = try await pagedText(of: document)
            }
            text.pageCount = read.count
            for page in read {
                if let path = page.ocrPath { ServiceMetrics.ocrPages(path: path) }
            }
            let bytes: [UInt8]
            let result: BlobHash
            do {
                bytes = try StableJSON.encode(text)
                result = try await store.blobs.put(bytes: bytes, as: .derivative)
            } catch {
                throw PreviewError.storing(error, "The document's text could not be stored.")
            }
            let record = DerivativeRecord(
                key: key, sourceSha256: document.sha256, operation: .text, parameters: DocumentText.fileName,
                renderer: textVersion(document.kind), resultSha256: result, width: 0, height: 0, createdAt: Date())
            return JobOutcome(
                previewStatus: nil, derivatives: [NewDerivative(record: record, size: bytes.count, mime: "application/json", pages: read)])
        } catch {
            return JobOutcome(previewStatus: nil, error: error)
        }
    }

    /// The text of every page of paged `document` (up to ``DocumentText/maxPages`` and its
    /// ``DocumentText/wordBudget(forBytes:)``, and as many as five jobs' time allows), one page per call in a
    /// renderer child, each within the page budget: its text layer, or when it has none (a scan) its
    /// pixels read by OCR. A page that cannot be read is listed as unread and the rest go on.
    private func pagedText(of document: Document) async throws(PreviewError) -> (DocumentText, [PageText]) {
        let pdf =
            Renderers.needsPivot(document.kind)
            ? try await localPath(of: try await pivot(of: document.sha256, kind: document.kind).record.resultSha256)
            : try await localPath(of: document.sha256)
        var pages = document.pages ?? 0
        if pages == 0 { pages = try await renderers.pdfRenderer(on: offload).probe(pdf).pages ?? 1 }
        var text = DocumentText(pageCount: 0, truncated: pages > DocumentText.maxPages)
        var read: [PageText] = []
        var words = 0
        let languages = ocrVersion == nil ? nil : configuration.ocrLanguages
        // A document whose every page spends its budget stops at the document's: a worker's
        // slot is not a stranger's for hours (the service's clock, asked once a page).
        let deadline = clock.instant + .seconds(configuration.limits.jobSeconds * Self.textJobsPerDocument)
        for page in 1...max(1, min(pages, DocumentText.maxPages)) {
            if clock.instant > deadline || words > DocumentText.wordBudget(forBytes: document.size) {
                text.truncated = true
                break
            }
            read.append(
                try await Self.page(page, unreadIn: &text) { () async throws(PreviewError) in
                    try await renderers.text(ofPDF: pdf, page: page, ocr: languages, on: offload)
                })
            words += read[read.count - 1].words.count
        }
        return (text, read)
    }

    /// Page `number` as `read` reads it; an empty page, listed in `text`'s unread pages, when its
    /// bytes cannot be read (damaged, or out of the page budget).
    private static func page(
        _ number: Int, unreadIn text: inout DocumentText,
        _ read: () async throws(PreviewError) -> PageText
    ) async throws(PreviewError) -> PageText {
        do throws(PreviewError) {
            return try await read()
        } catch  where error.code.disposition == .unreadable {
            text.unreadPages.append(number)
            return PageText(page: number, width: 0, height: 0, words: [])
        }
    }

    /// How many jobs' time (``Limits/jobSeconds``) one document's text may take.
    package static let textJobsPerDocument = 5.0

    /// What a document's text depends on besides its bytes: the reading (of the text layer, and of
    /// pixels where there is none), and for an office document the conversion to its pivot.
    func textVersion(_ kind: FileKind) -> String {
        let ocr = ocrVersion ?? "no ocr"
        if kind.category == .image { return ocr }
        let pages = "\(PDFRenderer.textVersion) + \(ocr)"
        return Renderers.needsPivot(kind) ? "\(pages) + \(Renderers.officeVersion)" : pages
    }

    /// Every current reading's ``textVersion(_:)``: the text derivatives a search reads.
    public var textReadings: [String] {
        [textVersion(.pdf), textVersion(.docx), textVersion(.jpeg)]
    }

    /// The cache key of the text of source `source`, a document of `kind`.
    func textKey(_ source: BlobHash, kind: FileKind) -> String {
        let material = "derivative/2\n\(source.hex)\ntext\n\(DocumentText.fileName)\n\(textVersion(kind))\n\(DocumentText.maxPages)"
        return BlobHash.of(Array(material.utf8)).hex
    }
}

extension DocumentText {
    /// Its derivative row's parameters.
    static let fileName = "text.json"
}
