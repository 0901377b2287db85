import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewServer
import PreviewStore

/// What the pages share: how a page addresses a document's files (``MediaLinks``, for its
/// ``MediaView``), the delete and restore confirmations, a document's neighbours in a listing, and
/// the headers of every HTML response.
enum PageParts {
    /// The pages of a long document shown at most; the rest are a download away.
    static let maxPages = 500

    /// The forms' limits of a title and a description (the specifications'; the API takes longer ones).
    static let maxTitle = 100
    static let maxDescription = 500

    /// How a page addresses a document's files: by their paths (the viewer, signed in), or by signed
    /// URLs (a share's page, whose visitor has no token); and whether it offers the original's download.
    struct MediaLinks {
        let documentID: String
        let offersDownload: Bool
        /// A text whose hits the pages show marked (a share's, once the text is read).
        let highlight: String?
        /// How many of a paged document's pages the markup holds, the others made by `web/media.js`
        /// as they approach (from the addresses of page 1's, which only unsigned links allow); nil: all.
        let written: Int?
        private let address: (String, [(String, String)]) -> String
        private let zoomAddress: (String) -> String

        init(
            documentID: String, offersDownload: Bool = true, highlight: String? = nil, written: Int? = nil,
            address: @escaping (String, [(String, String)]) -> String = { path, query in
                query.isEmpty ? path : path + "?" + QueryItems.encoded(query)
            },
            zoom: @escaping (String) -> String = { IIIFService.prefix + $0 }
        ) {
            self.documentID = documentID
            self.offersDownload = offersDownload
            self.highlight = highlight
            self.written = written
            self.address = address
            zoomAddress = zoom
        }

        /// The address of the IIIF image `identifier`, which makes an image zoomable (`web/zoom.js`).
        func zoom(_ identifier: String) -> String { zoomAddress(identifier) }

        /// The document's `resource` (`content`, `preview`, `renditions/mp4`, …) with `query`.
        func url(_ resource: String, _ query: [(String, String)] = []) -> String {
            address("/v1/documents/\(documentID)/\(resource)", query)
        }

        /// The original's download, when this page offers it.
        var download: String? { offersDownload ? url("content", [("download", "1")]) : nil }
    }

    /// The pages a signed-in page's markup holds (the first: nothing else competes with it for
    /// the network); the script makes the others as they approach.
    static let writtenPages = 1

    /// The widths a page's image is offered at on a signed-in page (a phone's screen takes the
    /// first), in WebP (a text page's weighs two thirds of its JPEG), and the width it is shown at.
    static let pageWidths = [768, 1024]
    static let pageFormat = ("format", "webp")
    static let pageSizes = "(max-width: 1040px) 100vw, 1024px"

    /// What the document is shown as, on a signed-in page (its files by their paths).
    static func media(of document: Document, in documents: DocumentService) async throws -> MediaView {
        let playback = try await documents.playbackManifest(of: document)
        return MediaView(
            document, playback: playback, links: MediaLinks(documentID: document.id, written: writtenPages),
            texts: await documents.pageDescriptions(of: document, pages: 1...writtenPages))
    }

    /// The most characters of pages' text a page carries as their images' descriptions (a few
    /// dozen dense pages); the pages past them are described by their number alone.
    static let maxDescribedCharacters = 50_000

    /// `GET /ui/documents/{id}/delete`: asks before the document and all its versions go.
    static func deleteConfirmation(documents: DocumentService, id: String, session: Session?) async throws -> Response {
        let versions = try await documents.versions(of: id)
        let document = versions[0]
        return confirmation(
            title: "Delete \(document.title)?",
            message:
                "Are you sure you want to delete this document? All \(versions.count) version\(versions.count == 1 ? "" : "s") and their previews "
                + "go. This action cannot be undone.",
            action: "/ui/documents/\(document.id)/delete", button: "Delete", destroys: true, back: "/ui/documents/\(id)", session: session)
    }

    /// `GET /ui/documents/{id}/restore?version=N`: asks before version N becomes the current one.
    static func restoreConfirmation(documents: DocumentService, id: String, version: String?, session: Session?) async throws -> Response {
        let versions = try await documents.versions(of: id)
        guard let number = version.flatMap(Int.init), let restored = versions.first(where: { $0.version == number }) else {
            throw PreviewError(.notFound, "No version \(version ?? "") of this document.")
        }
        return confirmation(
            title: "Restore this version?",
            message:
                "Version \(number) (\(restored.filename)) becomes the current version. The current version will be marked as archived: it stays "
                + "in the version history.",
            action: "/ui/documents/\(restored.id)/restore?version=\(number)", button: "Restore", destroys: false,
            back: "/ui/documents/\(versions[0].id)", session: session)
    }

    /// A page that asks before `action` is posted (with the session's CSRF token), or goes `back` on Cancel.
    private static func confirmation(
        title: String, message: String, action: String, button: String, destroys: Bool, back: String,
        session: Session?
    ) -> Response {
        let page = NoticePage(
            title: title, message: message,
            form: .init(
                action: action, hidden: session.map { [.init(name: "csrf", value: $0.csrfToken)] } ?? [],
                input: nil, button: button, destroys: destroys),
            back: .init(href: back, label: "Cancel"))
        return Self.page(page.html)
    }

    /// The documents before and after `document` in `listing` (the owner's, newest first, unless
    /// said), and its place in it (1 for the first; nil when it is not among the first 5,000).
    static func neighbours(
        of document: Document, in documents: DocumentService,
        listing: DocumentQuery? = nil
    ) async throws -> (previous: Document?, next: Document?, place: Int?) {
        var query = listing ?? DocumentQuery(owner: document.owner, sort: .newest)
        query.limit = DocumentQuery.maxLimit
        query.after = nil
        var previous: Document?
        var before = 0
        for _ in 0..<50 {
            let page = try await documents.list(query)
            if let position = page.documents.firstIndex(where: { $0.id == document.id }) {
                let earlier = position > 0 ? page.documents[position - 1] : previous
                let place = before + position + 1
                if position + 1 < page.documents.count { return (earlier, page.documents[position + 1], place) }
                guard let next = page.next else { return (earlier, nil, place) }
                query.after = next
                query.limit = 1
                return (earlier, try await documents.list(query).documents.first, place)
            }
            guard let next = page.next else { break }
            before += page.documents.count
            previous = page.documents.last
            query.after = next
        }
        return (nil, nil, nil)
    }

    static func typeLabel(_ document: Document, rules: DocumentRules) -> String {
        guard let type = document.type else { return "No type" }
        return rules.type(id: type)?.label ?? type
    }

    /// A page's response: HTML that may load only this site's images, media and scripts (the zoom).
    static func page(_ html: String) -> Response {
        Response(status: .ok, headers: htmlHeaders, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The headers of every HTML response (pages, sign-in, refusals): no scripts but this site's files, nothing from
    /// elsewhere, forms only to this site, and no framing by any page.
    static let htmlHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; media-src 'self'; style-src 'self' 'unsafe-inline'; "
            + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        HTTPField.Name("X-Frame-Options")!: "DENY"
    ]
}
