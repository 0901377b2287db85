import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import Synchronization

/// `GET /iiif/3/{identifier}/info.json` and `…/{region}/{size}/{rotation}/{quality}.{format}`:
/// IIIF Image API 3.0 (level 2) over a document's picture (`{document_id}`) or page
/// (`{document_id}~p{n}`), of its latest version or of `~v{n}`. Requests are checked before any work;
/// the advertised tiles are kept as derivatives, other regions are rendered for their answer only,
/// both within the render gate.
struct IIIFController {
    let documents: DocumentService
    let settings: ServerSettings
    let renders: RenderGate
    /// What each document version's (and page's) regions are cut from, once found.
    let sources = ZoomSources()

    func register(on routes: RouteTable) {
        routes.add(.get, "/iiif/3/:identifier") { request, context in
            // The base URI of an image is its information (the API's baseUriRedirect).
            Response(status: .seeOther, headers: [.location: request.uri.path + "/info.json", .accessControlAllowOrigin: "*"])
        }
        routes.add(.get, "/iiif/3/:identifier/info.json") { request, context in
            try await information(try identifier(context), request: request, context: context)
        }
        routes.add(.get, "/iiif/3/:identifier/:region/:size/:rotation/:file") { request, context in
            let parameters = context.parameters
            return try await image(
                try identifier(context), region: parameters.require("region"), size: parameters.require("size"),
                rotation: parameters.require("rotation"), file: parameters.require("file"), request: request,
                context: context)
        }
    }

    private func identifier(_ context: ServerContext) throws -> IIIFService.Identifier {
        guard let text = try context.parameters.require("identifier").removingPercentEncoding, let identifier = IIIFService.Identifier(text) else {
            throw APIError(.notFound, "No such image: an identifier is {document_id}, with ~v{version} and ~p{page} when wanted.")
        }
        return identifier
    }

    func information(_ identifier: IIIFService.Identifier, request: Request, context: ServerContext) async throws -> Response {
        let (_, zoom) = try await source(of: identifier, context: context)
        let id = settings.origin(of: request) + request.uri.path.dropLast("/info.json".count)
        let wantsLD = request.headers[.accept]?.contains("application/ld+json") == true
        let type = wantsLD ? "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"" : "application/json"
        var response = try JSON.response(
            IIIFService.information(id: id, width: zoom.width, height: zoom.height),
            headers: [.accessControlAllowOrigin: "*", .cacheControl: cacheControl(identifier)], keys: .asNamed)
        response.headers[.contentType] = type
        return response
    }

    func image(
        _ identifier: IIIFService.Identifier, region: String, size: String, rotation: String, file: String, request: Request,
        context: ServerContext
    ) async throws -> Response {
        let (document, zoom) = try await source(of: identifier, context: context)
        let wanted: IIIFImageRequest
        do {
            wanted = try IIIFImageRequest(region: region, size: size, rotation: rotation, file: file, width: zoom.width, height: zoom.height)
        } catch let .badRequest(message) {
            throw APIError(.badRequest, message)
        } catch let .notImplemented(message) {
            throw APIError(.notImplemented, message)
        }
        let keeping = wanted.isCanonicalTile(width: zoom.width, height: zoom.height)
        let marks = try await marks(context.signedGrant?.marked, of: document, page: identifier.page, region: wanted.region)
        let documents = documents
        let (renders, pause) = (renders, settings.clientCheckPause)
        /// The region cut now (stored when it is a canonical tile).
        func cut() async throws -> (hash: BlobHash, bytes: [UInt8]?) {
            let made = try await renders.admitting(document, context: context, pause: pause) {
                try await documents.zoom(zoom, wanted.region, format: wanted.format, marks: marks, keeping: keeping)
            }
            return (made.hash, made.bytes)
        }
        let served: (hash: BlobHash, bytes: [UInt8])
        if keeping, let hit = try await documents.storedZoom(zoom, wanted.region, format: wanted.format, marks: marks) {
            if request.headers[.ifNoneMatch] == "\"\(hit.resultSha256.hex)\"" {
                return Response(status: .notModified, headers: headers(identifier, etag: hit.resultSha256, format: wanted.format))
            }
            served = try await documents.servedBytes(of: hit.resultSha256, kind: "tile", remake: cut)
        } else {
            let made = try await cut()
            var bytes = made.bytes
            if bytes == nil { bytes = await documents.intactBytes(of: made.hash) }
            guard let bytes else { throw APIError(.internal, "The image could not be read back from the store; try again.") }
            served = (made.hash, bytes)
        }
        let (hash, bytes) = served
        ServiceMetrics.iiifImages(kind: keeping ? "tile" : "region")
        return Response(
            status: .ok, headers: headers(identifier, etag: hash, format: wanted.format), body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// What a share's tiles carry (its watermark and redaction laid out on the whole page or picture);
    /// none for the owner's. A redacting share's are upright only (its boxes are not turned), and
    /// wait for the words its redaction finds.
    private func marks(_ share: ShareRecord?, of document: Document, page: Int?, region: ImageRegion) async throws -> RenderMarks {
        guard let share else { return .none }
        if share.redaction != nil, region.rotation != 0 || region.mirrored {
            throw APIError(.notImplemented, "A redacted link's images are not turned or mirrored.")
        }
        guard let marks = try await documents.marks(of: share, on: document, page: page ?? 1) else {
            throw APIError(
                PreviewError(.unavailable, "The document's words are still being read; ask again in a moment."), headers: [.retryAfter: "2"])
        }
        return marks
    }

    /// The document the identifier names, done, and what its regions are cut from (found once per
    /// version and page, in a render slot: it may build a pyramid or draw a poster frame).
    private func source(of identifier: IIIFService.Identifier, context: ServerContext) async throws
        -> (Document, DocumentService.ZoomSource)
    {
        let documents = documents
        let document: Document
        do {
            document = try await documents.zoomable(identifier.document, version: identifier.version)
        } catch let error as PreviewError where error.code == .unavailable {
            throw APIError(error, headers: [.retryAfter: "2"])
        }
        let key = ZoomSources.Key(document: document.id, version: document.version, page: identifier.page, dpi: settings.zoomDPI)
        if let known = sources[key] { return (document, known) }
        let dpi = settings.zoomDPI
        let found = try await renders.admitting(document, context: context) {
            try await documents.zoomSource(of: document, page: identifier.page, dpi: dpi)
        }
        sources[key] = found
        return (document, found)
    }

    private func headers(_ identifier: IIIFService.Identifier, etag: BlobHash, format: RenderRequest.Format) -> HTTPFields {
        [
            .contentType: format.mime, .eTag: "\"\(etag.hex)\"", .cacheControl: cacheControl(identifier), .accessControlAllowOrigin: "*",
            HTTPField.Name("Link")!: "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""
        ]
    }

    /// A version's images never change: kept a year. The latest version's may: asked again each time
    /// (an `ETag` makes that cheap).
    private func cacheControl(_ identifier: IIIFService.Identifier) -> String {
        identifier.version == nil ? "private, no-cache" : "private, max-age=31536000, immutable"
    }
}

/// What the regions of each document version (and page) are cut from: found once, then kept here
/// (a bounded number; the oldest half is forgotten when full). Keyed by the version, not its bytes:
/// a version deleted (and its pyramid collected) is never asked for again, while the same bytes
/// uploaded anew are a new version that finds or builds its pyramid afresh.
final class ZoomSources: Sendable {
    struct Key: Hashable {
        var document: String
        var version: Int
        var page: Int?
        var dpi: Int
    }

    static let capacity = 4096
    private let known = Mutex<[Key: (DocumentService.ZoomSource, Int)]>([:])
    private let clock = Atomic<Int>(0)

    subscript(key: Key) -> DocumentService.ZoomSource? {
        get { known.withLock { $0[key]?.0 } }
        set {
            let now = clock.wrappingAdd(1, ordering: .relaxed).newValue
            known.withLock { known in
                known[key] = newValue.map { ($0, now) }
                if known.count > Self.capacity {
                    let cutoff = known.values.map(\.1).sorted()[known.count / 2]
                    known = known.filter { $0.value.1 >= cutoff }
                }
            }
        }
    }
}
