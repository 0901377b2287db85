internal import CVips
import Foundation

/// A failed libvips call: the function and the message libvips left for this thread.
package struct VipsError: Error, Sendable, CustomStringConvertible {
    package var function: String
    package var message: String

    package var description: String { "\(function) failed: \(message)" }

    /// Reads and clears libvips's error buffer in one step (`vips_error_buffer_copy`), so under
    /// concurrency the message is not another thread's.
    /// The funnel for libvips return codes: non-zero throws with the thread's message.
    static func check(_ result: Int32, _ function: String) throws(VipsError) {
        guard result == 0 else { throw VipsError(function: function) }
    }

    init(function: String, message: String) {
        self.function = function
        self.message = message
    }

    /// libvips found no loader for the file.
    var isUnrecognised: Bool { message.contains("not a known file format") }

    init(function: String) {
        self.function = function
        if let copy = lazy_vips_error_buffer_copy()() {
            message = String(cString: copy).trimmingCharacters(in: .whitespacesAndNewlines)
            lazy_g_free()(copy)
        } else {
            message = "unknown error"
        }
    }
}
