import Foundation
import PreviewCore

/// A link's card, made in the fetch child: each source read through the ``AddressCheckingProxy``
/// in the site's order (``LinkSite``), the page bounded by ``CardOrder/maxPageBytes`` and read by
/// libxml2's parser (``PageMetadata``), then the card's picture fetched to the workspace.
///
/// - X: the site's oEmbed answer (author, the post's text and date), then its embed data (the
///   post's photos and video: ``XEmbedData``), then the page's tags.
/// - Instagram and TikTok: `yt-dlp --dump-json`, then oEmbed, then the page's tags.
/// - Others: Open Graph, Twitter's tags and JSON-LD, then oEmbed (the site's, or the page's
///   discovery link), then `<title>`.
///
/// A link to anything but a page is a file: an image is its own picture; another file is handed
/// to the parent, which makes its preview. Refused addresses end the card while the page is read
/// (``ProxyRefusals``), and only cost the oEmbed answer or the picture after.
struct CardFetch {
    let order: FetchOrder
    let card: CardOrder
    let direct: DirectFetch
    let extractor: ExtractorFetch
    /// A refused address ends the fetch while the link itself is read (its redirects, `yt-dlp`).
    let refusals: ProxyRefusals
    let started = Date()

    /// The most bytes an oEmbed answer or embed data may have.
    static let maxAnswerBytes = 512 * 1024

    private var secondsLeft: Double { max(0.5, order.seconds - Date().timeIntervalSince(started)) }
    private var workspace: URL { URL(fileURLWithPath: order.workspace) }

    func run() throws(FetchFailure) -> FetchReply {
        guard let url = URL(string: order.url) else { throw .permanent(.badRequest, "This is not a link.") }
        refusals.setEndsTheFetch(true)
        // yt-dlp may take the time the page would need: it gets 60 % of it at most.
        let extracted: LinkCard? =
            card.site.readByExtractor && order.extractor != nil
            ? (try? extractor.info(seconds: order.seconds * 0.6, extractors: card.site.extractors)).flatMap {
                LinkCard(extracted: $0, url: url, site: card.site)
            } : nil
        let file = workspace.appendingPathComponent("file")
        let response: DirectFetch.Response
        do {
            response = try direct.get(
                order.url, accept: "text/html, application/xhtml+xml;q=0.9, */*;q=0.5", to: file, maxBytes: order.maxBytes,
                keptPageBytes: card.maxPageBytes, seconds: secondsLeft, what: "file")
        } catch {
            guard let extracted, error.error.code != .privateAddress else { throw error }
            refusals.setEndsTheFetch(false)
            return .card(extracted, file: nil, picture: picture(of: extracted))
        }
        refusals.setEndsTheFetch(false)
        let final = response.finalURL ?? url
        guard response.isPage else { return linkedFile(file, type: response.contentType, url: url, final: final) }
        let page = PageMetadata(html: response.page)
        let pageCard = LinkCard(page, url: final, site: card.site)
        let discovered = page.link(rel: "alternate", type: "application/json+oembed").flatMap {
            LinkCard.web(URL(string: $0.href, relativeTo: final)?.absoluteURL)
        }
        let embedded = (card.oEmbed ?? discovered).flatMap { oEmbed($0, url: url) }
        let posted = card.site == .x ? xEmbed(of: url) : nil
        var made: LinkCard =
            switch card.site {
            case .x: (embedded ?? posted ?? pageCard).filled(from: posted).filled(from: pageCard)
            case .instagram, .tiktok: (extracted ?? embedded ?? pageCard).filled(from: embedded).filled(from: pageCard)
            default: pageCard.filled(from: embedded).filled(from: extracted)
            }
        made.url = url.absoluteString
        // Instagram names the author only in its title: "Jordan Lee on Instagram: "…"".
        if card.site == .instagram, made.author?.name == nil, let title = made.title, let cut = title.range(of: " on Instagram") {
            made.author = LinkCard.Author(name: String(title[..<cut.lowerBound]), handle: made.author?.handle)
        }
        return .card(made, file: nil, picture: picture(of: made))
    }

    /// The card of a link that is a file: an image is the card's picture; any other file is left
    /// at `file` for the parent to preview.
    private func linkedFile(_ file: URL, type: String, url: URL, final: URL) -> FetchReply {
        let name = final.lastPathComponent.isEmpty || final.lastPathComponent == "/" ? LinkCard.host(of: final) : final.lastPathComponent
        let isImage = type.hasPrefix("image/")
        let made = LinkCard(
            url: url.absoluteString, canonicalURL: final.absoluteString, site: LinkCard.host(of: final), kind: isImage ? .image : .file,
            title: LinkCard.cut(name.removingPercentEncoding ?? name, LinkCard.maxTitle), text: nil, author: nil, publishedAt: nil,
            media: isImage ? [LinkCard.Media(type: "image", thumbnail: final.absoluteString)] : [], source: .title)
        return .card(made, file: isImage ? nil : file.path, picture: isImage ? .success(file.path) : nil)
    }

    /// The oEmbed answer at `address` as a card, or nil (no answer, not JSON, refused).
    private func oEmbed(_ address: String, url: URL) -> LinkCard? {
        json(at: address).flatMap { LinkCard(oEmbed: $0, url: url, site: card.site) }
    }

    /// The JSON object at `address` (``maxAnswerBytes`` at most), or nil (no answer, not JSON,
    /// refused). An answer labelled as a page is read as well: some sites send JSON as `text/html`.
    private func json(at address: String?) -> [String: Any]? {
        guard let address else { return nil }
        let file = workspace.appendingPathComponent("answer")
        defer { try? FileManager.default.removeItem(at: file) }
        guard
            let response = try? direct.get(
                address, accept: "application/json", to: file, maxBytes: Self.maxAnswerBytes, keptPageBytes: Self.maxAnswerBytes,
                seconds: secondsLeft, what: "answer"),
            let data = response.isPage ? Data(response.page) : try? Data(contentsOf: file)
        else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// What X's embed widget reads of the post at `url` (its photos and video, which the oEmbed
    /// answer leaves out), as a card; nil for another link, or no answer.
    private func xEmbed(of url: URL) -> LinkCard? {
        guard let endpoint = card.embedData, let id = XEmbedData.postID(in: url), let token = XEmbedData.token(of: id),
            var address = URLComponents(string: endpoint)
        else { return nil }
        address.queryItems =
            (address.queryItems ?? []) + [
                URLQueryItem(name: "id", value: id), URLQueryItem(name: "lang", value: "en"), URLQueryItem(name: "token", value: token)
            ]
        guard let object = json(at: address.url?.absoluteString) else { return nil }
        return LinkCard(xEmbed: object, url: url)
    }

    /// The card's picture fetched to the workspace, or why not; nil when it names none.
    private func picture(of made: LinkCard) -> Result<String, FetchFailure>? {
        guard let address = made.media.first?.thumbnail else { return nil }
        let file = workspace.appendingPathComponent("picture")
        do {
            let response = try direct.get(
                address, accept: "image/avif, image/webp, image/png, image/jpeg, image/*;q=0.8", to: file, maxBytes: card.maxPictureBytes,
                seconds: secondsLeft, what: "picture")
            guard !response.isPage else { return .failure(.permanent(.unsupportedType, "The picture's address answers a web page.")) }
            return .success(file.path)
        } catch {
            return .failure(error)
        }
    }
}
