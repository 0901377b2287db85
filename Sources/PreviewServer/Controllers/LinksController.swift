import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewFetch

/// Links' cards (``LinkPreviews``), with the token or a session:
/// - `POST /v1/links/preview` `{"url", "owner"}` and `GET /v1/links/preview?url=&owner=`: the card
///   (`url, canonical_url, site, kind, title, text, author, published_at, media, source`), its
///   picture a signed URL of ours (`/v1/links/pictures/SHA256`), never the site's; `fetched_at`,
///   and `stale` while a refresh runs. A link that gave no card answers its reason (`link_failed`,
///   `private_address`, `file_too_large`, `timeout`…) with that code's status.
/// - `GET /v1/links/pictures/{sha256}`: a card's picture (a thumbnail), by the token, a session or
///   a signed URL; immutable, as its address is its bytes' hash.
///
/// Fetches (not answers from the cache) are paced per owner and per address; the service token
/// asking for no owner is bounded only by the fetches that run at once (``LinkPreviews/maxFetches``).
struct LinksController {
    let links: LinkPreviews
    let signed: SignedURLs
    /// Cards fetched: 20 at once, then one every 2 s, per owner and per address (the document service's per owner only).
    let fetchPace: Pace

    init(links: LinkPreviews, signed: SignedURLs, clock: any ServiceClock) {
        self.links = links
        self.signed = signed
        fetchPace = Pace(perSecond: 0.5, burst: 20, clock: clock)
    }

    struct Body: Decodable {
        var url: String
        var owner: String?
    }

    /// A card as the API answers it.
    struct View: Encodable {
        var url: String
        var canonicalURL: String
        var site: String
        var kind: LinkCard.Kind
        var title: String?
        var text: String?
        var author: LinkCard.Author?
        var publishedAt: String?
        var media: [LinkCard.Media]
        var source: LinkCard.Source
        var fetchedAt: String
        var stale: Bool
        /// Why the card has no picture although its page names one.
        var pictureError: PictureError?

        struct PictureError: Encodable {
            var code: String
            var message: String
        }

        enum CodingKeys: String, CodingKey {
            case url, site, kind, title, text, author, media, source, stale
            case canonicalURL = "canonical_url", publishedAt = "published_at", fetchedAt = "fetched_at", pictureError = "picture_error"
        }
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/v1/links/preview") { request, context in
            let body = try await JSON.body(Body.self, of: request, limit: 16 * 1024, expected: #"{"url": "https://…", "owner": "…"}"#)
            return try await card(body.url, owner: body.owner, context: context)
        }
        routes.add(.get, "/v1/links/preview") { request, context in
            guard let url = request.queryFields.get("url") else { throw APIError.badRequest("url is required.") }
            return try await card(url, owner: try request.filter("owner"), context: context)
        }
        routes.add(.get, "/v1/links/pictures/:sha") { _, context in
            guard let hash = BlobHash(hex: try context.parameters.require("sha")), let picture = try await links.picture(hash) else {
                throw APIError(.notFound, "No such picture.")
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: picture.mime, .cacheControl: "private, max-age=31536000, immutable", .contentTypeOptions: "nosniff"
                ],
                body: .init(byteBuffer: ByteBuffer(bytes: picture.bytes)))
        }
    }

    private func card(_ url: String, owner: String?, context: ServerContext) async throws -> Response {
        // The document service asking for no owner in particular is bounded by the fetch lane alone.
        let (pace, keys) = (fetchPace, context.viaServiceToken && owner == nil ? [] : context.paceKeys(owner: owner))
        let answer: LinkPreviews.Answer
        do {
            answer = try await links.card(of: url) { try pace.check(keys, "link previews fetched") }
        } catch let error as APIError where error.error.code == .queueFull {
            ServiceMetrics.linkCards(outcome: "paced")
            throw error
        }
        var media = answer.card.media
        let picture = answer.record.picture.map { signed.sign("/v1/links/pictures/\($0.hex)", expires: signed.clock.unixSeconds + 86_400) }
        if media.isEmpty, let picture {
            media = [LinkCard.Media(type: "image", thumbnail: picture)]
        } else if !media.isEmpty {
            media[0].thumbnail = picture
        }
        let card = answer.card
        let view = View(
            url: card.url, canonicalURL: card.canonicalURL, site: card.site, kind: card.kind, title: card.title, text: card.text,
            author: card.author, publishedAt: card.publishedAt, media: media, source: card.source,
            fetchedAt: answer.record.fetchedAt.formatted(.iso8601), stale: answer.stale,
            pictureError: answer.record.pictureError.map { View.PictureError(code: $0.code.rawValue, message: $0.message) })
        return try JSON.response(view, headers: [.cacheControl: "private, no-cache"])
    }
}
