import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewServer

/// `/s/{token}`: a document shared with a person who has no account. Its title and its previews
/// (pages lazily, the image, the video with its rendition and filmstrip), the original's download
/// only when the share allows it. Every file on it is a short-lived signed URL of that document,
/// bound to the share (revoking it stops them); nothing else of the service is reachable from it.
/// No referrer leaves it, search engines are told not to index it, and it has the viewer's CSP.
enum SharedPage {
    /// How long the page's media URLs live: a film watched to its end, not a link kept for later.
    static let mediaSeconds = 3600
    /// How long the page's reading reports are taken: a page left open through a working day.
    static let readingSeconds = 43_200

    static func response(
        _ document: Document, share: ShareRecord, playback: DocumentService.Playback?, texts: [Int: String],
        rules: DocumentRules, signed: SignedURLs
    ) -> Response {
        // Lifetimes end with the share's own expiry at the latest.
        let until = { (seconds: Int) in min(signed.clock.unixSeconds + seconds, share.expiresAt.map { Int($0.timeIntervalSince1970) } ?? .max) }
        let expires = until(mediaSeconds)
        // A watermarked share's video plays, and downloads, its marked film once it is made; a sound
        // cannot carry a watermark, so its recording is neither played nor downloaded.
        let unmarkable = document.kind.category == .audio || document.kind.category == .video && playback?.rendition == nil
        let offersDownload = share.allowDownload && (share.watermark == nil || !unmarkable)
        let links = PageParts.MediaLinks(
            documentID: document.id, offersDownload: offersDownload,
            highlight: texts.isEmpty ? nil : share.highlight,
            address: { path, query in
                signed.sign(path, query: query + [("share", share.id)], expires: expires)
            },
            zoom: { identifier in
                signed.iiifPath(identifier, expires: expires, share: share.id)
            })
        let model = Shared(
            pageTitle: document.title, typeLabel: PageParts.typeLabel(document, rules: rules), title: document.title,
            kindLabel: document.kind.label.prefix(1).uppercased() + document.kind.label.dropFirst(),
            downloadHref: links.download,
            downloadLabel: downloadLabel(document, share: share),
            watermark: share.watermark, media: MediaView(document, playback: playback, links: links, texts: texts),
            readingPass: signed.readingPass(share: share.id, expires: until(readingSeconds)))
        return page(status: .ok, PageTemplates.render(model, "shared"))
    }

    /// "Download the original", or what the download is instead: "Download (PDF, redacted, watermarked)".
    private static func downloadLabel(_ document: Document, share: ShareRecord) -> String {
        let marks = [share.redaction.map { _ in "redacted" }, share.watermark.map { _ in "watermarked" }].compactMap { $0 }
        guard !marks.isEmpty else { return "Download the original" }
        return "Download (" + ((document.kind.isPaged ? ["PDF"] : []) + marks).joined(separator: ", ") + ")"
    }

    /// The shared page's model (`web/shared.mustache`).
    struct Shared {
        let pageTitle: String
        let stylesheet = StaticAsset.style.url
        let scripts = [StaticAsset.zoom.url, StaticAsset.plays.url, StaticAsset.reading.url]
        let csrf: String? = nil
        let typeLabel: String
        let title: String
        let kindLabel: String
        let downloadHref: String?
        let downloadLabel: String
        /// The text every picture and page carries, when the share has a watermark.
        let watermark: String?
        let media: MediaView
        /// The pass its reading reports carry (`reading.js`).
        let readingPass: String
    }

    static func passwordForm(token: String, wrong: Bool) -> Response {
        let notice = NoticePage(
            title: "A shared document", message: wrong ? nil : "This link needs the password it was shared with.",
            failure: wrong ? "That password is not right." : nil,
            form: .init(
                action: PagePaths.sharePrefix + token, hidden: [],
                input: .init(label: "Password", name: "password", type: "password", autocomplete: "off"),
                button: "Open", destroys: false),
            noReferrer: true)
        return page(status: wrong ? .unauthorized : .ok, notice.html)
    }

    /// 429 after too many wrong passwords, or (`openings`) a link opened too often from here.
    static func throttled(after wait: Duration, openings: Bool = false) -> Response {
        let notice =
            openings
            ? NoticePage(
                title: "Opened too often", message: "This link was opened many times in a short while. Wait a moment, then reload the page.",
                noReferrer: true)
            : NoticePage(title: "Too many tries", message: "Wait a minute before trying again.", noReferrer: true)
        var response = page(status: .tooManyRequests, notice.html)
        response.headers[.retryAfter] = "\(max(1, wait.components.seconds + 1))"
        return response
    }

    /// 410 for a link that was revoked, expired or whose document is gone; 404 for no such link.
    static func refusal(_ error: PreviewError) -> Response {
        page(status: error.code == .gone ? .gone : .notFound, NoticePage(title: "Not available", message: error.message, noReferrer: true).html)
    }

    private static func page(status: HTTPResponse.Status, _ html: String) -> Response {
        var headers = PageParts.htmlHeaders
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Robots-Tag")!] = "noindex, nofollow"
        headers[.cacheControl] = "private, no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
