internal import CPoppler

/// An open PDF (Poppler's `PDFDoc`), parsed once; pages are loaded only when asked for.
///
/// Owns the document and closes it in `deinit`; a failed initialiser owns nothing. Not thread-safe:
/// Poppler crashes when one document is used from several threads at once, so share an instance only
/// behind a lock or actor. Different documents may be used from different threads.
package final class PDFDocument {
    let document: OpaquePointer

    /// Opens the PDF at `path`. Throws ``PDFError`` (`.encrypted` when a user password is needed).
    package init(path: String, password: String? = nil) throws(PDFError) {
        var status = DOCPREVIEW_PDF_OK
        guard let document = lazy_docpreview_pdf_open()(path, password, &status) else {
            throw PDFError(opening: status)
        }
        self.document = document
    }

    deinit {
        lazy_docpreview_pdf_close()(document)
    }

    /// Number of pages, from the page tree; no page is loaded.
    package var pageCount: Int { Int(lazy_docpreview_pdf_page_count()(document)) }

    /// Page `number` (1-based), loaded now and only now. Throws when it is not in 1…``pageCount``; a page
    /// whose object cannot be read is an empty page (size 0×0, rendered blank), as pdftoppm has it.
    package func page(_ number: Int) throws(PDFError) -> PDFPage {
        var width = 0.0
        var height = 0.0
        // The shim refuses a number outside 1…page count.
        guard let number32 = Int32(exactly: number), lazy_docpreview_pdf_page_size()(document, number32, &width, &height) != 0 else {
            throw PDFError(function: "PDFDoc::getPage", reason: .other, message: "no page \(number)")
        }
        return PDFPage(number: number, size: (width, height), document: self)
    }
}

/// Versions of the PDF stack.
package enum PDFLibrary {
    /// e.g. `poppler 22.12.0 splash`.
    package static var versions: String {
        "poppler \(String(cString: lazy_docpreview_pdf_poppler_version()())) splash"
    }
}
