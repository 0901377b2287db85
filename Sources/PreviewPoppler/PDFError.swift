internal import CPoppler

/// A failed Poppler call: the function and what its `GError` said.
public struct PDFError: Error, Sendable, CustomStringConvertible {
    /// Poppler's reason, from the `POPPLER_ERROR` domain.
    public enum Reason: Sendable {
        case encrypted, damaged, other
    }

    public var function: String
    public var reason: Reason
    public var message: String

    public var description: String { "\(function) failed: \(message)" }

    init(function: String, reason: Reason, message: String) {
        self.function = function
        self.reason = reason
        self.message = message
    }

    /// Takes ownership of `error` and frees it.
    init(function: String, consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.init(function: function, reason: .other, message: "unknown error")
            return
        }
        defer { lazy_g_error_free()(error) }
        var reason = Reason.other
        if error.pointee.domain == docpreview_poppler_error_quark() {
            switch Int(error.pointee.code) {
            case Int(POPPLER_ERROR_ENCRYPTED.rawValue): reason = .encrypted
            case Int(POPPLER_ERROR_DAMAGED.rawValue), Int(POPPLER_ERROR_BAD_CATALOG.rawValue): reason = .damaged
            default: break
            }
        }
        self.init(function: function, reason: reason, message: String(cString: error.pointee.message))
    }
}
