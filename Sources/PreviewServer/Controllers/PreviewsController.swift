import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewStore

/// `GET /v1/documents/{id}/preview`: a document's previews, stored or rendered on demand within
/// the render gate's bounds; one rendered now is answered from the renderer's bytes and stored after.
/// With `highlight=`, a page's hits of that text are marked on it.
struct PreviewsController {
    let documents: DocumentService
    let settings: ServerSettings
    /// Bounds the preview renders in flight, overall, per owner and per document.
    let renders: RenderGate
    /// Stores what was rendered for a request once it is answered.
    let keeping: PreviewKeeping

    /// The `202` answer while the document's job has not made the preview yet.
    struct NotYet: Encodable {
        var status: DocumentStatus
        var documentID: String
    }

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/documents/:id/preview") { request, context in
            try await preview(context.parameters.require("id"), request: request, context: context)
        }
    }

    func preview(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        let documents = documents
        let asked = try Self.renderRequest(request)
        let document = try await documents.document(id: id)
        var wanted = documents.previewRequest(asked, for: document)
        // A share's marks (watermark, redaction) are on its previews whatever the URL asks; a
        // redaction waits for the words it finds.
        if let share = context.signedGrant?.marked {
            guard let marks = try await documents.marks(of: share, on: document, page: wanted.page) else {
                return try JSON.response(TextController.NotYet(documentID: document.id), status: .accepted, headers: [.retryAfter: "2"])
            }
            wanted = marks.applied(to: wanted)
        }
        if let text = request.queryFields.get("highlight") {
            guard let hits = TextHits(query: text) else {
                throw APIError.badRequest(TextHits.requirement("highlight"))
            }
            // The hits on this page, marked on it; a page without one is the plain page (one cache entry).
            // Until the text is read, the answer is the text's own 202.
            guard let boxes = try await documents.highlightBoxes(of: hits, in: document, page: wanted.page) else {
                return try JSON.response(TextController.NotYet(documentID: document.id), status: .accepted, headers: [.retryAfter: "2"])
            }
            wanted.highlights = boxes.isEmpty ? nil : boxes
        }
        let answer = try await documents.previewAnswer(wanted, of: document)
        var record: DerivativeRecord
        // A preview rendered for this request is answered from the bytes the renderer returned.
        var bytes: [UInt8]?
        switch answer {
        case .notYet:
            return try JSON.response(NotYet(status: document.status, documentID: document.id), status: .accepted, headers: [.retryAfter: "2"])
        case let .stored(stored):
            record = stored
        case .render:
            let made = try await render(document, request: wanted, context: context)
            record = made.record
            bytes = made.rendered?.bytes
            keeping.keep(made)
        }
        // Private: a preview is one owner's document; shared caches (proxies, CDNs) must not keep it.
        // Immutable once the document's jobs are done; while one runs it may still change (a
        // highlight reel's poster moves to one of its plays once they are indexed): revalidated.
        let settled = document.jobStatus != .queued && document.jobStatus != .processing
        var headers: HTTPFields = [
            .eTag: "\"\(record.resultSha256.hex)\"", .cacheControl: settled ? "private, max-age=31536000, immutable" : "private, no-cache"
        ]
        if request.headers[.ifNoneMatch] == headers[.eTag] { return Response(status: .notModified, headers: headers) }
        // A preview is small: checked against its name before it is served. A damaged or missing one
        // is rendered again, which rewrites its blob.
        if bytes == nil {
            let documents = documents
            let served = try await documents.servedBytes(of: record.resultSha256, kind: "preview") {
                (try await documents.repairPreview(wanted, of: document).resultSha256, nil)
            }
            bytes = served.bytes
            headers[.eTag] = "\"\(served.hash.hex)\""
        }
        headers[.contentType] = wanted.format.mime
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes ?? [])))
    }

    /// Renders a preview the cache did not have, once a render slot is free (only a render takes
    /// one, so a stored preview is served whatever is being rendered); not stored yet.
    private func render(_ document: Document, request: RenderRequest, context: ServerContext) async throws
        -> DocumentService.RenderedPreview
    {
        try await renders.admitting(document, context: context, pause: settings.clientCheckPause) {
            let started = ContinuousClock.now
            let documents = documents
            let made = try await documents.renderPreview(request, of: document)
            ServiceMetrics.previewRenderSeconds(nanoseconds: started.duration(to: .now).nanoseconds, kind: document.kind.category.rawValue)
            return made
        }
    }

    /// The request's page, size and format.
    static func renderRequest(_ request: Request) throws -> RenderRequest {
        let query = request.queryFields
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int(text), range.contains(value) else { throw APIError.badRequest("\(name) must be in \(range)") }
            return value
        }
        var wanted = RenderRequest(
            page: try number("page", 1...1_000_000) ?? 1, width: try number("width", 1...RenderRequest.maxEdge),
            height: try number("height", 1...RenderRequest.maxEdge))
        if let format = query.get("format") {
            guard let parsed = RenderRequest.Format(rawValue: format) else { throw APIError.badRequest("format must be jpeg, png or webp") }
            wanted.format = parsed
        }
        return wanted
    }
}
