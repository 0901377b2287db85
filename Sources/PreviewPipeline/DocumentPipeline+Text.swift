import Foundation
import PreviewCore
import PreviewRenderers
import PreviewStore

/// The text of paged documents (PDFs, and office documents through their pivot): read page by page
/// from the text layer in renderer children by a text job. What was read (``DocumentText``) is a
/// small JSON derivative of the document's bytes, keyed by the source, the reading and Poppler's
/// version (and for an office document the conversion's); the pages are rows of the index written
/// with it (``PageTexts``).
extension DocumentPipeline {
    /// Whether documents of `kind` have a text job: paged ones.
    public func readsText(_ kind: FileKind) -> Bool {
        kind.isPaged && renderers.renders(kind)
    }

    /// The stored text of `document`, if its text job has made it: what was read, and the pages in
    /// `range` (every page when nil), with their words when `words`.
    public func documentText(of document: Document, pages range: ClosedRange<Int>? = nil, words: Bool) async throws(PreviewError)
        -> (text: DocumentText, pages: [PageTexts.Page])? {
        guard readsText(document.kind), let record = try await cached(key: textKey(document.sha256, kind: document.kind)) else { return nil }
        do {
            let text = try JSONDecoder().decode(DocumentText.self, from: Data(try await store.blobs.read(record.resultSha256)))
            return (text, try await PageTexts(database: store.index).pages(of: record.key, in: range, words: words))
        } catch {
            throw PreviewError.storing(error, "The document's text could not be read.")
        }
    }

    /// Whether `document`'s text has been read (its text derivative is stored).
    public func hasText(_ document: Document) async throws(PreviewError) -> Bool {
        guard readsText(document.kind) else { return false }
        return try await cached(key: textKey(document.sha256, kind: document.kind)) != nil
    }

    /// What a text job comes to: the text of every page of `document` (up to
    /// ``DocumentText/maxPages`` and ``DocumentText/maxWords``, and as many as five jobs' time
    /// allows), found in the derivative
    /// cache (the same bytes are read once) or read now, one page per call in a renderer child,
    /// each within the page budget; a page that cannot be read is listed as unread and the rest go
    /// on. Its derivative is returned for the job's transaction.
    public func textOutcome(of document: Document) async -> JobOutcome {
        do throws(PreviewError) {
            guard readsText(document.kind) else { throw PreviewError(.unsupportedType, "No text is read from \(document.kind.label).") }
            let key = textKey(document.sha256, kind: document.kind)
            if try await cached(key: key) != nil { return JobOutcome(previewStatus: nil) }
            let pdf = Renderers.needsPivot(document.kind)
                ? try await localPath(of: try await pivot(of: document.sha256, kind: document.kind).record.resultSha256)
                : try await localPath(of: document.sha256)
            var pages = document.pages ?? 0
            if pages == 0 { pages = try await renderers.pdfRenderer(on: offload).probe(pdf).pages ?? 1 }
            var text = DocumentText(pageCount: 0, truncated: pages > DocumentText.maxPages)
            var read: [PageText] = []
            var words = 0
            // A document whose every page spends its budget stops at the document's: a worker's
            // slot is not a stranger's for hours.
            let deadline = ContinuousClock.now + .seconds(configuration.limits.jobSeconds * Self.textJobsPerDocument)
            for page in 1...max(1, min(pages, DocumentText.maxPages)) {
                if ContinuousClock.now > deadline || words > DocumentText.maxWords {
                    text.truncated = true
                    break
                }
                do throws(PreviewError) {
                    read.append(try await renderers.text(ofPDF: pdf, page: page, on: offload))
                    words += read[read.count - 1].words.count
                } catch where error.code.disposition == .unreadable {
                    text.unreadPages.append(page)
                    read.append(PageText(page: page, width: 0, height: 0, words: []))
                }
            }
            text.pageCount = read.count
            let bytes: [UInt8]
            let result: BlobHash
            do {
                bytes = try StableJSON.encode(text)
                result = try await store.blobs.put(bytes: bytes, as: .derivative)
            } catch {
                throw PreviewError.storing(error, "The document's text could not be stored.")
            }
            let record = DerivativeRecord(key: key, sourceSha256: document.sha256, operation: .text, parameters: DocumentText.fileName,
                                          renderer: textVersion(document.kind), resultSha256: result, width: 0, height: 0, createdAt: Date())
            return JobOutcome(previewStatus: nil, derivatives: [NewDerivative(record: record, size: bytes.count, mime: "application/json", pages: read)])
        } catch {
            return JobOutcome(previewStatus: nil, error: error)
        }
    }

    /// How many jobs' time (``Limits/jobSeconds``) one document's text may take.
    static let textJobsPerDocument = 5.0

    /// What a document's text depends on besides its bytes: the reading, and for an office
    /// document the conversion to its pivot.
    func textVersion(_ kind: FileKind) -> String {
        Renderers.needsPivot(kind) ? Self.officeTextVersion : PDFRenderer.textVersion
    }

    /// An office document's reading: its pivot's conversion, then the PDF's.
    private static var officeTextVersion: String {
        "\(PDFRenderer.textVersion) + \(Renderers.officeVersion)"
    }

    /// Every current reading's ``textVersion(_:)``: the text derivatives a search reads.
    public var textReadings: [String] {
        [PDFRenderer.textVersion, Self.officeTextVersion]
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
