import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore

/// What a page route answers when it fails: a page a person reads, in the specifications' words
/// ("Document not found", "Return to Documents"), with the status and headers (`Retry-After`) the
/// API would have answered, never the API's JSON.
enum PageFailure {
    /// `make`'s page, or the page of its failure. `upload` says the route received an upload.
    static func answering(upload: Bool = false, _ make: () async throws -> Response) async throws -> Response {
        do {
            return try await make()
        } catch let error as APIError {
            return page(error, upload: upload)
        } catch let error as PreviewError {
            return page(APIError(error), upload: upload)
        } catch let error as NIOTooManyBytesError {
            return page(APIError(error), upload: upload)
        }
    }

    static func page(_ failure: APIError, upload: Bool = false) -> Response {
        let back = NoticePage.Link(href: "/", label: "Return to Documents")
        let notice: NoticePage
        switch failure.error.code {
        case _ where upload:
            notice = NoticePage(title: "Upload failed", failure: "Upload failed: \(failure.error.message)", back: back)
        case .notFound, .gone:
            notice = NoticePage(title: "Document not found", message: "It was deleted, or the address is not complete.", back: back)
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
