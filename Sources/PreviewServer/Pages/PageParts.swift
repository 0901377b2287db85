import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore

/// What the pages share: a document's media as markup (``body(_:playback:links:)``):
/// pages of a paged document as images the browser fetches (and so the server renders) only when
/// they scroll into view, a video's poster and a player on its ladder, rendition or original with a
/// filmstrip of its scrubbing thumbnails (`#t=`), an image at preview size; images and pages zoom
/// (`web/zoom.js`). Also the delete confirmation, a document's neighbours in a listing, and the
/// headers of every HTML response.
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
        fileprivate let zoomAddress: (String) -> String

        init(documentID: String, offersDownload: Bool = true, highlight: String? = nil, written: Int? = nil,
             address: @escaping (String, [(String, String)]) -> String = { path, query in
                 query.isEmpty ? path : path + "?" + QueryItems.encoded(query)
             },
             zoom: @escaping (String) -> String = { IIIFService.prefix + $0 }) {
            self.documentID = documentID
            self.offersDownload = offersDownload
            self.highlight = highlight
            self.written = written
            self.address = address
            zoomAddress = zoom
        }

        /// The attributes that make an image zoomable: the IIIF image `identifier`'s address, and the
        /// tiles' format (pages' text stays sharp in PNG).
        func zoom(_ identifier: String, format: String = "jpg") -> String {
            " data-zoom=\"\(SafeText.html(zoomAddress(identifier)))\"" + (format == "jpg" ? "" : " data-zoom-format=\"\(format)\"")
        }

        /// The document's `resource` (`content`, `preview`, `renditions/mp4`, …) with `query`, escaped for an attribute.
        func url(_ resource: String, _ query: [(String, String)] = []) -> String {
            SafeText.html(address("/v1/documents/\(documentID)/\(resource)", query))
        }

        /// A link to download the original, or nothing when this page offers none.
        func download(_ text: String) -> String {
            offersDownload ? "<a href=\"\(url("content", [("download", "1")]))\">\(text)</a>" : ""
        }
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
    static func media(of document: Document, in documents: DocumentService) async throws -> String {
        let playback = try await documents.playbackManifest(of: document)
        return body(document, playback: playback, links: MediaLinks(documentID: document.id, written: writtenPages),
                    texts: await documents.pageDescriptions(of: document, pages: 1...writtenPages))
    }

    /// The most characters of pages' text a page carries as their images' descriptions (a few
    /// dozen dense pages); the pages past them are described by their number alone.
    static let maxDescribedCharacters = 50_000

    /// What the document is shown as, its files addressed by `links`.
    /// `texts` are the pages' text by number (their images' descriptions, for those who cannot see them).
    static func body(_ document: Document, playback: DocumentService.Playback?, links: MediaLinks, texts: [Int: String] = [:]) -> String {
        let kind = document.kind
        switch document.status {
        case .failed:
            let reason = document.errorMessage.map { " " + SafeText.html($0) } ?? ""
            return "<div class=\"unavailable\"><p class=\"note\">Preview unavailable. Unable to load document.\(reason)</p><p>\(links.download("Download"))</p></div>"
        // The media script shows the preview here once it is made.
        case .queued, .processing: return "<p class=\"making note\" role=\"status\">The preview is being made.</p>"
        case .done: break
        }
        if document.previewStatus == .noPreview {
            let download = links.offersDownload
                ? "<p><a class=\"button primary\" href=\"\(links.url("content", [("download", "1")]))\">Download to view</a></p>" : ""
            return "<div class=\"unavailable\"><p>Preview unavailable for this file type (\(SafeText.html(kind.label))).</p>\(download)</div>"
        }
        switch kind.category {
        case .video:
            return video(document, playback: playback, links: links)
        case .audio:
            guard links.offersDownload else { return "<p>This recording plays from its original, which this link does not share.</p>" }
            return "<div class=\"media\"><audio controls preload=\"metadata\" src=\"\(links.url("content"))\"></audio></div>"
        case .image:
            let size = document.width.map { w in document.height.map { " (\(w)×\($0))" } ?? "" } ?? ""
            return """
                <div class="media"><img src="\(links.url("preview", [("width", "1024")]))" alt="\(SafeText.html(document.title))"\
                \(links.zoom("\(document.id)~v\(document.version)"))></div>
                <p>\(links.offersDownload ? "<a href=\"\(links.url("content"))\">Original</a>\(size)" : "")</p>
                """
        default:
            guard kind.isPaged, let pages = document.pages, pages > 0 else {
                return "<div class=\"media\"><img src=\"\(links.url("preview", [("width", "1024")]))\" alt=\"\"></div>"
            }
            // Sized before they load, so only the pages near the viewport are fetched.
            let ratio = document.width.flatMap { w in document.height.map { "\(w) / \($0)" } } ?? "1 / 1.414"
            let all = min(pages, maxPages)
            let shown = min(all, links.written ?? all)
            var described = 0
            let marks = links.highlight.map { [("highlight", $0)] } ?? []
            let images = (1...shown).map { page in
                // A page's text describes its image (screen readers read it after "Page N").
                var description = ""
                if let text = texts[page], !text.isEmpty, described + text.count <= maxDescribedCharacters {
                    described += text.count
                    description = " aria-describedby=\"page-text-\(page)\""
                }
                // The first page is asked for first; on a signed-in page each comes at the width its screen needs.
                let loading = page == 1 ? "loading=\"eager\" fetchpriority=\"high\"" : "loading=\"lazy\""
                let format = links.written == nil ? [] : [pageFormat]
                let widths = links.written == nil ? "" : " srcset=\"" + pageWidths.map { width in
                    "\(links.url("preview", format + [("page", "\(page)"), ("width", "\(width)")] + marks)) \(width)w"
                }.joined(separator: ", ") + "\" sizes=\"\(pageSizes)\""
                let image = """
                    <img \(loading) decoding="async" style="aspect-ratio:\(ratio)" src="\(links.url("preview", format + [("page", "\(page)"), ("width", "1024")] + marks))"\
                    \(widths) alt="Page \(page)"\(description)\(links.zoom("\(document.id)~v\(document.version)~p\(page)", format: "png"))>
                    """
                guard !description.isEmpty, let text = texts[page] else { return image }
                // Its lines read as one run of words (line breaks are no markup here).
                let words = text.split(whereSeparator: \.isNewline).joined(separator: " ")
                return image + "\n<div class=\"page-text\" id=\"page-text-\(page)\">\(SafeText.html(words))</div>"
            }.joined(separator: "\n")
            let more = pages > all ? "<p>Pages \(all + 1)–\(pages) are in the original. \(links.download("Download it"))</p>" : ""
            // The pages past the written ones, made by the script from these addresses and page numbers.
            let template = shown < all ? """
                 data-pages="\(all)" data-ratio="\(ratio)" data-page-src="\(links.url("preview", [pageFormat] + marks + [("page", "")]))" \
                data-page-widths="\(pageWidths.map(String.init).joined(separator: ","))" data-page-sizes="\(pageSizes)" \
                data-page-zoom="\(SafeText.html(links.zoomAddress("\(document.id)~v\(document.version)~p")))"
                """ : ""
            return "<p class=\"pagecount\">\(pages) page\(pages == 1 ? "" : "s")</p>\n<div class=\"pages\"\(template)>\n\(images)\n</div>\(more)"
        }
    }

    /// A video's player: its HLS ladder first (a browser that plays HLS, Safari, adapts to the
    /// network; the others skip it by its type or when it fails to load), its rendition next (what
    /// every browser plays), the original after it (a browser that plays it natively may pick it;
    /// only where the page offers the original: a share without downloads plays what was made of
    /// it, never the file with its metadata), then the filmstrip of its thumbnails.
    static func video(_ document: Document, playback: DocumentService.Playback?, links: MediaLinks) -> String {
        var sources = ""
        if playback?.ladder != nil {
            sources += "<source src=\"\(links.url("hls/\(DocumentService.Playback.Ladder.masterName)"))\" type=\"\(DocumentService.playlistMime)\">"
        }
        if let rendition = playback?.rendition {
            sources += "<source src=\"\(links.url("renditions/\(rendition.name)"))\" type='\(rendition.mime); codecs=\"\(rendition.codecs)\"'>"
        }
        if links.offersDownload {
            sources += "<source src=\"\(links.url("content"))\" type=\"\(SafeText.html(document.mime))\">"
        } else if playback?.ladder == nil && playback?.rendition == nil {
            let why = playback?.renditionError.map { "This video cannot be played here: \(SafeText.html($0.message))" }
                ?? "This video is not playable yet: its playable version is still being made."
            return "<div class=\"media\"><img src=\"\(links.url("preview", [("width", "1024")]))\" alt=\"\(SafeText.html(document.title))\"></div>"
                + "<p class=\"note\">\(why)</p>"
        }
        var html = "<div class=\"media\"><video controls preload=\"metadata\" poster=\"\(links.url("preview", [("width", "1024")]))\">\(sources)</video></div>"
        if let refused = playback?.renditionError {
            html += "<p class=\"note\">No rendition: \(SafeText.html(refused.message))</p>"
        } else if playback?.rendition == nil {
            // Filled in by the media script from the document's progress while its rendition is made.
            html += "<p class=\"making note\" role=\"status\" hidden></p>"
        }
        guard let trickplay = playback?.trickplay?.layout else { return html }
        guard let target = playback?.rendition.map({ links.url("renditions/\($0.name)") }) ?? (links.offersDownload ? links.url("content") : nil) else {
            return html
        }
        let tiles = (0..<trickplay.tiles).map { index -> String in
            let (sheet, offset) = (index / trickplay.perSheet, index % trickplay.perSheet)
            let (x, y) = ((offset % trickplay.columns) * trickplay.tileWidth, (offset / trickplay.columns) * trickplay.tileHeight)
            let seconds = Double(index) * trickplay.intervalSeconds
            // A sheet is as wide as its tiles, up to a row of them.
            let across = min(trickplay.columns, trickplay.tiles - sheet * trickplay.perSheet)
            return """
                <a href="\(target)#t=\(Int(seconds))" title="\(Int(seconds) / 60):\(String(format: "%02d", Int(seconds) % 60))" \
                style="width:\(trickplay.tileWidth / 2)px;height:\(trickplay.tileHeight / 2)px;background:url(\(links.url("trickplay/sprite-\(sheet).jpg"))) \
                -\(x / 2)px -\(y / 2)px / \(across * trickplay.tileWidth / 2)px auto"></a>
                """
        }
        return html + "<div class=\"filmstrip\">\(tiles.joined())</div>"
    }

    /// `GET /ui/documents/{id}/delete`: asks before the document and all its versions go.
    static func deleteConfirmation(documents: DocumentService, id: String, session: Session?) async throws -> Response {
        let versions = try await documents.versions(of: id)
        let document = versions[0]
        return confirmation(
            title: "Delete \(document.title)?",
            message: "Are you sure you want to delete this document? All \(versions.count) version\(versions.count == 1 ? "" : "s") and their previews go. This action cannot be undone.",
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
            message: "Version \(number) (\(restored.filename)) becomes the current version. The current version will be marked as archived: it stays in the version history.",
            action: "/ui/documents/\(restored.id)/restore?version=\(number)", button: "Restore", destroys: false,
            back: "/ui/documents/\(versions[0].id)", session: session)
    }

    /// A page that asks before `action` is posted (with the session's CSRF token), or goes `back` on Cancel.
    private static func confirmation(title: String, message: String, action: String, button: String, destroys: Bool, back: String,
                                     session: Session?) -> Response {
        let page = NoticePage(title: title, message: message,
                              form: .init(action: action, hidden: session.map { [.init(name: "csrf", value: $0.csrfToken)] } ?? [],
                                          input: nil, button: button, destroys: destroys),
                              back: .init(href: back, label: "Cancel"))
        return Self.page(page.html)
    }

    /// The documents before and after `document` in `listing` (the owner's, newest first, unless
    /// said), and its place in it (1 for the first; nil when it is not among the first 5,000).
    static func neighbours(of document: Document, in documents: DocumentService,
                           listing: DocumentQuery? = nil) async throws -> (previous: Document?, next: Document?, place: Int?) {
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
        .contentSecurityPolicy: "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; media-src 'self'; style-src 'self' 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        HTTPField.Name("X-Frame-Options")!: "DENY",
    ]
}
