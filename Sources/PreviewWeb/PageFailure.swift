import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewServer

/// What a page route answers when it fails: a page a person reads, in the specifications' words
/// ("Document not found", "Return to Documents"), with the status and headers (`Retry-After`) the
/// API would have answered, never the API's JSON.
enum PageFailure {
    /// What the route did, for the words of its failure.
    enum Action {
        case show, upload, delete, restore
    }

    /// `make`'s page, or the page of its failure.
    static func answering(_ action: Action = .show, _ make: () async throws -> Response) async throws -> Response {
        do {
            return try await make()
        } catch let error as APIError {
            return page(error, action)
        } catch let error as PreviewError {
            return page(APIError(error), action)
        } catch let error as NIOTooManyBytesError {
            return page(APIError(error), action)
        }
    }

    static func page(_ failure: APIError, _ action: Action = .show) -> Response {
        let back = NoticePage.Link(href: "/", label: "Return to Documents")
        let notice: NoticePage
        switch failure.error.code {
        case _ where action == .upload:
            notice = NoticePage(title: "Upload failed", failure: "Upload failed: \(failure.error.message)", back: back)
        case .notFound, .gone:
            notice = NoticePage(title: "Document not found", message: "It was deleted, or the address is not complete.", back: back)
        case _ where action == .delete:
            notice = NoticePage(
                title: "Failed to delete document", message: "Failed to delete document. Please try again.",
                failure: failure.error.message, back: back)
        case _ where action == .restore:
            notice = NoticePage(
                title: "Failed to restore the version", message: "The version was not restored. Please try again.",
                failure: failure.error.message, back: back)
        case .badRequest:
            notice = NoticePage(title: "This list cannot be shown", failure: failure.error.message, back: back)
        case _ where failure.status.code >= 500:
            notice = NoticePage(title: "Server error", message: "Server error. Please try again.", failure: failure.error.message, back: back)
        default:
            notice = NoticePage(title: "Not possible", failure: failure.error.message, back: back)
        }
        var headers = PageParts.htmlHeaders
        for field in failure.headers where field.name != .contentType && field.name != .wwwAuthenticate {
            headers.append(field)
        }
        return Response(status: failure.status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: notice.html)))
    }
}
