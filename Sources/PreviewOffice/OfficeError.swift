/// A LibreOfficeKit failure: the office would not start, or a document would not load or convert.
public struct OfficeError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable {
        /// The office is not installed or did not start.
        case unavailable
        /// The document could not be loaded or converted.
        case unreadable
    }

    public var reason: Reason
    public var message: String
    /// What LibreOffice said, for logs.
    public var detail: String?

    init(_ reason: Reason, _ message: String, detail: String? = nil) {
        self.reason = reason
        self.message = message
        self.detail = detail
    }

    public var description: String { message + (detail.map { " (\($0))" } ?? "") }
}
