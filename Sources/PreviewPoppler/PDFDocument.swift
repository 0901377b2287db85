internal import CPoppler
import Foundation

/// An open PDF (`PopplerDocument`), parsed once; pages are loaded only when asked for.
///
/// Owns the document and unrefs it in `deinit`. Not thread-safe: Poppler crashes when one
/// document is used from several threads at once, so share an instance only behind a lock or actor.
public final class PDFDocument {
    let document: OpaquePointer

    /// Opens the PDF at `path`. Throws ``PDFError`` (`.encrypted` when a user password is needed).
    public init(path: String, password: String? = nil) throws(PDFError) {
        var error: UnsafeMutablePointer<GError>? = nil
        // Poppler opens URIs, and file URIs must be absolute.
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let uri = lazy_g_filename_to_uri()(absolute, nil, &error) else {
            throw PDFError(function: "g_filename_to_uri", consuming: error)
        }
        defer { lazy_g_free()(uri) }
        guard let document = lazy_poppler_document_new_from_file()(uri, password, &error) else {
            throw PDFError(function: "poppler_document_new_from_file", consuming: error)
        }
        self.document = document
    }

    deinit {
        lazy_g_object_unref()(UnsafeMutableRawPointer(document))
    }

    /// Number of pages, from the page tree; no page is rendered.
    public var pageCount: Int { Int(lazy_poppler_document_get_n_pages()(document)) }
}

/// Versions of the PDF stack.
public enum PDFLibrary {
    /// e.g. `poppler 22.12.0, cairo 1.16.0`.
    public static var versions: String {
        // Both return static strings, never NULL.
        "poppler \(String(cString: lazy_poppler_get_version()()!)), cairo \(String(cString: lazy_cairo_version_string()()!))"
    }
}
