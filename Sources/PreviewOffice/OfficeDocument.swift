internal import COffice
import Foundation

/// One loaded document: owned, destroyed once when released.
package final class OfficeDocument {
    /// What LibreOffice made of the file.
    package enum Family: Sendable {
        case text, spreadsheet, presentation, drawing, other
    }

    private let office: Office
    private let handle: OpaquePointer

    /// Loads `file` with no dialogs, no interaction and no macros: LibreOfficeKit's batch mode
    /// cancels any dialog (the load then fails), macros are neither executed nor trusted.
    package init(_ file: URL, in office: Office) throws(OfficeError) {
        self.office = office
        handle = try office.load(file, options: "Language=en-US,Batch=true,EnableMacrosExecution=false,MacroSecurityLevel=3")
    }

    deinit {
        office.serialized { docpreview_office_close(handle) }
    }

    package var family: Family {
        switch office.serialized({ docpreview_office_document_type(handle) }) {
        case 0: .text
        case 1: .spreadsheet
        case 2: .presentation
        case 3: .drawing
        default: .other
        }
    }

    /// Sheets of a spreadsheet, slides of a presentation; 1 for a text document.
    package var parts: Int { office.serialized { Int(docpreview_office_parts(handle)) } }

    /// Writes the first `maxPages` pages of the document (at most) as a PDF to `file`.
    package func savePDF(to file: URL, maxPages: Int) throws(OfficeError) {
        // The PDF filter takes its settings (FilterData) as JSON in the filter options.
        let pages = maxPages > 1 ? "1-\(maxPages)" : "1"
        let options = #"{"PageRange":{"type":"string","value":"\#(pages)"}}"#
        let saved = office.serialized { docpreview_office_save(handle, file.absoluteString, "pdf", options) }
        guard saved != 0 else { throw OfficeError(.unreadable, "LibreOffice could not convert the document to PDF.") }
    }
}
