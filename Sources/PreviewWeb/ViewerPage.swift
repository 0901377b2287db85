import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewServer

/// `GET /ui/documents/{id}/view`: one document on the whole screen — close, share, download, a
/// counter (its page in view, or its length), a paged document's find box (its hits marked on the
/// pages, the next and previous one a button or Enter away), full screen, and the previous and next documents of
/// the list it was opened from (``ListContext``) by the arrow keys, a swipe or the buttons (`web/viewer.js`). Pictures and
/// pages zoom by pinch, wheel or buttons (`web/zoom.js`); a video plays fitted to the screen,
/// portrait or not, its filmstrip seeking it (`web/media.js`).
struct ViewerPage {
    let pageTitle: String
    let stylesheet = StaticAsset.style.url
    let scripts = [StaticAsset.zoom.url, StaticAsset.common.url, StaticAsset.media.url, StaticAsset.plays.url, StaticAsset.viewer.url]
    let csrf: String?
    let id: String
    let title: String
    let counter: String
    let detailPath: String
    let sharePath: String
    let downloadPath: String
    /// Where a paged document's text is searched (the find box); nil for other kinds.
    let searchPath: String?
    let previous: DetailPage.Neighbour?
    let next: DetailPage.Neighbour?
    /// "3 of 10": the document's place in the list it was opened from (nil when not known).
    let position: String?
    let media: MediaView

    /// The viewer of document `id`.
    static func path(of id: String) -> String { "/ui/documents/\(id)/view" }

    static func response(documents: DocumentService, id: String, list: ListContext, session: Session?) async throws -> Response {
        let document = try await documents.document(id: id)
        let (previous, next, place) = try await PageParts.neighbours(of: document, in: documents, listing: list.query(owner: document.owner))
        let media = try await PageParts.media(of: document, in: documents)
        let total = try await list.count(in: documents.statistics(owner: document.owner))
        let model = ViewerPage(document, neighbours: (previous, next), place: place, of: total, list: list, media: media, session: session)
        return PageParts.page(PageTemplates.render(model, "viewer"))
    }

    init(
        _ document: Document, neighbours: (Document?, Document?), place: Int? = nil, of total: Int? = nil, list: ListContext, media: MediaView,
        session: Session?
    ) {
        id = document.id
        title = document.title
        pageTitle = document.title
        csrf = session?.csrfToken
        if let pages = document.pages, document.kind.isPaged {
            counter = pages == 1 ? "1 page" : "\(pages) pages"
        } else {
            counter = document.durationSeconds.map(DetailPage.duration) ?? ""
        }
        detailPath = list.carried("/ui/documents/\(document.id)")
        sharePath = detailPath + "#share"
        downloadPath = "/v1/documents/\(document.id)/content?download=1"
        searchPath = document.kind.isPaged && document.pages != nil ? "/v1/documents/\(document.id)/search" : nil
        previous = neighbours.0.map { DetailPage.Neighbour(href: list.carried(Self.path(of: $0.id)), title: $0.title) }
        next = neighbours.1.map { DetailPage.Neighbour(href: list.carried(Self.path(of: $0.id)), title: $0.title) }
        self.media = media
        position = place.map { place in total.map { "\(place) of \(max($0, place))" } ?? "\(place)" }
    }
}
