import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// `POST /v1/documents/{id}/signed-urls` (with the token or a session): URLs of the document's
/// files that need no token until they expire — what an app hands to an image view or a player.
/// Body (optional): `{"expires_in": SECONDS, "share": ID}` (default 900, at most 86400). With a
/// share of the document, the URLs are that share's, as its page's are: they carry its marks, end
/// with it, count its downloads, and come with the address and pass the app's reading reports take.
struct SignedURLsController {
    let documents: DocumentService
    let signed: SignedURLs?

    /// The pages a response lists at most (a long PDF's later pages are signed on request, as `page`).
    static let maxPages = 500

    struct Body: Decodable {
        var expiresIn: Int?
        var share: String?
        enum CodingKeys: String, CodingKey {
            case share
            case expiresIn = "expires_in"
        }
    }

    /// The signed URLs of one document (paths with their signature; the client's own origin before them).
    struct Links: Encodable {
        var expiresAt: Int
        var content: String
        var preview: String?
        /// Page N's preview at the viewer's width, for paged documents.
        var pages: [String]?
        var renditions: [String: String]?
        var hls: String?
        var trickplay: String?
        /// The IIIF image information of the picture (an image, a video's poster frame), or of each
        /// page (as `pages`), under a signed identifier: a zoom client's tiles need no token either.
        var iiif: String?
        var iiifPages: [String]?
        /// With a share: where the app's reading reports go, and the pass they carry.
        var reading: Reading?

        struct Reading: Encodable {
            var url: String
            var pass: String
        }
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/v1/documents/:id/signed-urls") { request, context in
            guard let signed else { throw APIError.badRequest("This server signs no URLs: start it with --signing-key-file.") }
            let id = try context.parameters.require("id")
            let asked = try await Self.body(request)
            let documents = documents
            let document = try await documents.document(id: id)
            var expires = documents.clock.unixSeconds + asked.seconds
            var share: ShareRecord?
            if let id = asked.share { share = try await documents.shareForApp(id, of: document) }
            if let ends = share?.expiresAt { expires = min(expires, Int(ends.timeIntervalSince1970)) }
            let playback = try await documents.view(of: document, through: share).playback
            ServiceMetrics.signedUrls(outcome: "issued")
            var links = Self.links(for: document, playback: playback, signed: signed, expires: expires, share: share?.id)
            if let share {
                links.reading = .init(
                    url: PagePaths.shareReadingPath(share: share.id),
                    pass: signed.readingPass(share: share.id, expires: expires))
            }
            return try JSON.response(links)
        }
    }

    /// The signed URLs of `document`'s files until `expires`, bound to `share` when there is one.
    static func links(for document: Document, playback: PlaybackView?, signed: SignedURLs, expires: Int, share: String? = nil) -> Links {
        let base = "/v1/documents/\(document.id)"
        let bound = share.map { [("share", $0)] } ?? []
        let sign = { (path: String, query: [(String, String)]) in signed.sign(path, query: query + bound, expires: expires) }
        let hasPreview = document.previewStatus == .ready || document.previewStatus == .pending
        var links = Links(
            expiresAt: expires, content: sign("\(base)/content", []),
            preview: hasPreview ? sign("\(base)/preview", []) : nil)
        let iiif = "\(document.id)~v\(document.version)"
        if hasPreview, document.kind.isPaged, let pages = document.pages, pages > 0 {
            links.pages = (1...min(pages, maxPages)).map {
                sign("\(base)/preview", [("page", "\($0)"), ("width", "1024")])
            }
            links.iiifPages = (1...min(pages, maxPages)).map {
                signed.iiifPath("\(iiif)~p\($0)", expires: expires, share: share) + "/info.json"
            }
        } else if hasPreview, [.image, .video].contains(document.kind.category) {
            links.iiif = signed.iiifPath(iiif, expires: expires, share: share) + "/info.json"
        }
        if let playback {
            links.renditions = Dictionary(
                uniqueKeysWithValues: playback.renditions.compactMap { rendition in
                    rendition.url.map { (rendition.name, sign($0, [])) }
                })
            links.hls = playback.hls.map { sign($0, []) }
            links.trickplay = playback.trickplay.map { sign($0, []) }
        }
        return links
    }

    /// The body's lifetime (seconds) and share, checked.
    private static func body(_ request: Request) async throws -> (seconds: Int, share: String?) {
        let body = try await request.body.collect(upTo: 4096)
        guard body.readableBytes > 0 else { return (SignedURLs.defaultSeconds, nil) }
        guard let asked = try? JSONDecoder().decode(Body.self, from: Data(body.readableBytesView)) else {
            throw APIError.badRequest("the body must be a JSON object, e.g. {\"expires_in\": 900}")
        }
        let seconds = asked.expiresIn ?? SignedURLs.defaultSeconds
        guard (1...SignedURLs.maxSeconds).contains(seconds) else {
            throw APIError.badRequest("expires_in must be in 1...\(SignedURLs.maxSeconds) seconds")
        }
        return (seconds, asked.share)
    }
}
