import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `/s/{token}`: a document shared with a person who has no account. Its title and its previews
/// (pages lazily, the image, the video with its rendition and filmstrip), the original's download
/// only when the share allows it. Every file on it is a short-lived signed URL of that document,
/// bound to the share (revoking it stops them); nothing else of the service is reachable from it.
/// No referrer leaves it, search engines are told not to index it, and it has the viewer's CSP.
enum SharedPage {
    static let pathPrefix = "/s/"
    /// How long the page's media URLs live: a film watched to its end, not a link kept for later.
    static let mediaSeconds = 3600

    static func response(_ document: Document, share: ShareRecord, playback: DocumentService.Playback?, rules: DocumentRules,
                         signed: SignedURLs) -> Response {
        let expires = min(signed.clock.unixSeconds + mediaSeconds, share.expiresAt.map { Int($0.timeIntervalSince1970) } ?? .max)
        let links = PageParts.MediaLinks(documentID: document.id, offersDownload: share.allowDownload, address: { path, query in
            signed.sign(path, query: query + [("share", share.id)], expires: expires)
        }, zoom: { identifier in
            signed.iiifPath(identifier, expires: expires, share: share.id)
        })
        let body = PageParts.body(document, kind: document.kind, status: document.status, playback: playback, links: links)
        let download = links.download("Download the original")
        return page(status: .ok, title: document.title, """
            <h1>\(SafeText.html(document.title))</h1>
            <p>\(SafeText.html(PageParts.typeLabel(document, rules: rules))) · \(SafeText.html(document.kind.label))\
            \(download.isEmpty ? "" : " · " + download)</p>
            \(body)
            """)
    }

    static func passwordForm(token: String, wrong: Bool) -> Response {
        page(status: wrong ? .unauthorized : .ok, title: "A shared document", """
            <h1>A shared document</h1>
            <p>\(wrong ? "That password is not right." : "This link needs the password it was shared with.")</p>
            <form method="post" action="\(pathPrefix)\(SafeText.html(token))"><label>Password <input type="password" name="password" \
            autocomplete="off" required></label> <button>Open</button></form>
            """)
    }

    static func throttled(after wait: Duration) -> Response {
        var response = page(status: .tooManyRequests, title: "Too many tries", "<h1>Too many tries</h1><p>Wait a minute before trying again.</p>")
        response.headers[.retryAfter] = "\(max(1, wait.components.seconds + 1))"
        return response
    }

    /// 410 for a link that was revoked, expired or whose document is gone; 404 for no such link.
    static func refusal(_ error: PreviewError) -> Response {
        page(status: error.code == .gone ? .gone : .notFound, title: "Not available", "<h1>Not available</h1><p>\(SafeText.html(error.message))</p>")
    }

    private static func page(status: HTTPResponse.Status, title: String, _ content: String) -> Response {
        var headers = PageParts.htmlHeaders
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Robots-Tag")!] = "noindex, nofollow"
        headers[.cacheControl] = "private, no-store"
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(SafeText.html(title))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">\(ZoomScript.element)
            <style>
            \(PageParts.mediaStyle)
            </style></head><body>
            \(content)
            </body></html>
            """
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
