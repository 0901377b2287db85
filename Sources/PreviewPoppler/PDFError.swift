internal import CPoppler

/// A failed Poppler call: the function and why.
package struct PDFError: Error, Sendable, CustomStringConvertible {
    /// Poppler's reason, from its error codes.
    package enum Reason: Sendable {
        case encrypted, damaged, other
        /// Drawing a page outlasted its time budget.
        case outOfTime
    }

    package var function: String
    package var reason: Reason
    package var message: String

    package var description: String { "\(function) failed: \(message)" }

    init(function: String, reason: Reason, message: String) {
        self.function = function
        self.reason = reason
        self.message = message
    }

    /// Why `PDFDoc` could not open a file.
    init(opening status: docpreview_pdf_status) {
        switch status {
        case DOCPREVIEW_PDF_ENCRYPTED:
            self.init(function: "PDFDoc", reason: .encrypted, message: "a password is needed")
        case DOCPREVIEW_PDF_DAMAGED, DOCPREVIEW_PDF_BAD_CATALOG:
            self.init(function: "PDFDoc", reason: .damaged, message: "the file is damaged")
        case DOCPREVIEW_PDF_OPEN_FILE:
            self.init(function: "PDFDoc", reason: .other, message: "the file cannot be opened")
        default:
            self.init(function: "PDFDoc", reason: .other, message: "the file cannot be read (status \(status.rawValue))")
        }
    }
}
