import PreviewCore
import PreviewPoppler

extension PDFRenderer {
    /// The most words one page's text keeps (a dense page of small print has about 2,000).
    package static let maxWordsPerPage = 20_000

    /// What a page's text depends on besides the PDF: the reading and the library's version.
    package static var textVersion: String { "text/2 \(PDFLibrary.versions)" }

    /// Page `number`'s words with their boxes, in reading order, from the PDF's text layer (none for
    /// a scan), read within the page budget.
    package func text(_ path: String, page number: Int) throws(PreviewError) -> PageText {
        try withDocument(path) { document throws(PreviewError) in
            let page = try page(number, of: document, pageCount: try pages(of: document))
            do throws(PDFError) {
                return try page.text(seconds: pageSeconds, maxWords: Self.maxWordsPerPage)
            } catch  where error.reason == .outOfTime {
                throw PreviewError(
                    .timeout, "The text of page \(number) took longer than \(Self.describe(seconds: pageSeconds)) to read.",
                    detail: error.description)
            } catch {
                throw PreviewError(.corrupt, "The text of page \(number) could not be read; the PDF is damaged.", detail: error.description)
            }
        }
    }
}
