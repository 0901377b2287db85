import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// `POST /v1/documents/{id}/signed-urls` (with the token or a session): URLs of the document's
/// files that need no token until they expire — what an app hands to an image view or a player.
/// Body (optional): `{"expires_in": SECONDS}` (default 900, at most 86400).
struct SignedURLsController {
    let documents: DocumentService
    let signed: SignedURLs?

    /// The pages a response lists at most (a long PDF's later pages are signed on request, as `page`).
    static let maxPages = 500

    struct Body: Decodable {
        var expiresIn: Int?
        enum CodingKeys: String, CodingKey { case expiresIn = "expires_in" }
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
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/v1/documents/:id/signed-urls") { request, context in
            guard let signed else { throw APIError.badRequest("This server signs no URLs: start it with --signing-key-file.") }
            let id = try context.parameters.require("id")
            let seconds = try await Self.lifetime(request)
            let documents = documents
            let document = try await documents.document(id: id)
            let playback = try await documents.view(of: document).playback
            ServiceMetrics.signedUrls(outcome: "issued")
            return try JSON.response(
                Self.links(
                    for: document, playback: playback, signed: signed,
                    expires: documents.clock.unixSeconds + seconds))
        }
    }

    static func links(for document: Document, playback: PlaybackView?, signed: SignedURLs, expires: Int) -> Links {
        let base = "/v1/documents/\(document.id)"
        let hasPreview = document.previewStatus == .ready || document.previewStatus == .pending
        var links = Links(
            expiresAt: expires, content: signed.sign("\(base)/content", expires: expires),
            preview: hasPreview ? signed.sign("\(base)/preview", expires: expires) : nil)
        let iiif = "\(document.id)~v\(document.version)"
        if hasPreview, document.kind.isPaged, let pages = document.pages, pages > 0 {
            links.pages = (1...min(pages, maxPages)).map {
                signed.sign("\(base)/preview", query: [("page", "\($0)"), ("width", "1024")], expires: expires)
            }
            links.iiifPages = (1...min(pages, maxPages)).map {
                signed.iiifPath("\(iiif)~p\($0)", expires: expires) + "/info.json"
            }
        } else if hasPreview, [.image, .video].contains(document.kind.category) {
            links.iiif = signed.iiifPath(iiif, expires: expires) + "/info.json"
        }
        if let playback {
            links.renditions = Dictionary(
                uniqueKeysWithValues: playback.renditions.compactMap { rendition in
                    rendition.url.map { (rendition.name, signed.sign($0, expires: expires)) }
                })
            links.hls = playback.hls.map { signed.sign($0, expires: expires) }
            links.trickplay = playback.trickplay.map { signed.sign($0, expires: expires) }
        }
        return links
    }

    private static func lifetime(_ request: Request) async throws -> Int {
        let body = try await request.body.collect(upTo: 4096)
        guard body.readableBytes > 0 else { return SignedURLs.defaultSeconds }
        guard let asked = try? JSONDecoder().decode(Body.self, from: Data(body.readableBytesView)) else {
            throw APIError.badRequest("the body must be a JSON object, e.g. {\"expires_in\": 900}")
        }
        let seconds = asked.expiresIn ?? SignedURLs.defaultSeconds
        guard (1...SignedURLs.maxSeconds).contains(seconds) else {
            throw APIError.badRequest("expires_in must be in 1...\(SignedURLs.maxSeconds) seconds")
        }
        return seconds
    }
}
