/// A LibreOfficeKit failure: the office would not start, or a document would not load or convert.
package struct OfficeError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        /// The office is not installed or did not start.
        case unavailable
        /// The document could not be loaded or converted.
        case unreadable
    }

    package var reason: Reason
    package var message: String
    /// What LibreOffice said, for logs.
    package var detail: String?

    init(_ reason: Reason, _ message: String, detail: String? = nil) {
        self.reason = reason
        self.message = message
        self.detail = detail
    }

    package var description: String { message + (detail.map { " (\($0))" } ?? "") }
}
