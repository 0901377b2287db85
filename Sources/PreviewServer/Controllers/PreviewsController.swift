import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewStore

/// `GET /v1/documents/{id}/preview`: a document's previews, stored or rendered on demand within
/// the render gate's bounds; one rendered now is answered from the renderer's bytes and stored after.
struct PreviewsController {
    let documents: DocumentService
    let offload: Offload
    let settings: ServerSettings
    /// Bounds the preview renders in flight, overall, per owner and per document.
    let renders: RenderGate
    /// Stores what was rendered for a request once it is answered.
    let keeping: PreviewKeeping

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/documents/:id/preview") { request, context in
            try await preview(context.parameters.require("id"), request: request, context: context)
        }
    }

    func preview(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        let documents = documents
        let document = try await offload.run(.reads) { try documents.document(id: id) }
        let kind = document.kind
        var wanted = try Self.renderRequest(request)
        if wanted.width == nil && wanted.height == nil && kind.category != .pdf { wanted = wanted.asThumbnail }
        wanted = wanted.onServedEdges

        func notYet() throws -> Response {
            try JSON.response(["status": document.status.rawValue, "document_id": document.id], status: .accepted, headers: [.retryAfter: "2"])
        }
        // An office document's thumbnail is ready before its job ends (made from its first page):
        // while the job runs, what is stored is served and nothing is rendered.
        let processing: Bool
        switch document.status {
        case .done: processing = false
        case .failed:
            throw APIError(document.error ?? PreviewError(.corrupt, "The document could not be processed."))
        case .queued, .processing:
            guard document.previewStatus == .ready else { return try notYet() }
            processing = true
        }
        if document.previewStatus == .noPreview {
            throw APIError(.unsupportedType, "No preview is made for \(kind.label).")
        }
        let (pipeline, rendering) = (documents.pipeline, wanted)
        // A preview already made is found on the reads lane; only a render goes to the renders lane.
        let hit = try await offload.run(.reads) { () throws -> DerivativeRecord? in
            try pipeline.cachedPreview(source: document.sha256, kind: kind, request: rendering)
        }
        var record: DerivativeRecord
        // A preview rendered for this request is answered from the bytes the renderer returned.
        var bytes: [UInt8]?
        if let hit {
            record = hit
        } else if processing {
            return try notYet()
        } else {
            let made = try await render(document, request: rendering, context: context)
            record = made.record
            bytes = made.rendered?.bytes
            keeping.keep(made)
        }
        // Private: a preview is one owner's document; shared caches (proxies, CDNs) must not keep it.
        var headers: HTTPFields = [.eTag: "\"\(record.resultSha256.hex)\"", .cacheControl: "private, max-age=31536000, immutable"]
        if request.headers[.ifNoneMatch] == headers[.eTag] { return Response(status: .notModified, headers: headers) }
        // A preview is small: checked against its name before it is served. A damaged or missing one
        // is rendered again, which rewrites its blob.
        if bytes == nil {
            let stored = record.resultSha256
            bytes = try await offload.run(.reads) { Self.intactBytes(of: stored, in: pipeline.store) }
        }
        if bytes == nil {
            context.logger.error("a stored preview is damaged or missing; rendering it again",
                                 metadata: ["preview.document": "\(id)", "preview.derivative": "\(record.resultSha256)"])
            Counter(label: "docpreview_damaged_blobs_total", dimensions: [("kind", "preview"), ("problem", "damaged")]).increment()
            record = try await offload.render { () throws(PreviewError) in
                try pipeline.preview(source: document.sha256, kind: kind, request: rendering, repairing: true).record
            }
            let repaired = record.resultSha256
            bytes = try await offload.run(.reads) { Self.intactBytes(of: repaired, in: pipeline.store) }
            guard bytes != nil else { throw APIError(.internal, "The preview could not be stored intact; try again later.") }
            headers[.eTag] = "\"\(repaired.hex)\""
        }
        headers[.contentType] = wanted.format.mime
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes ?? [])))
    }

    /// Renders a preview the cache did not have, once a render slot is free (only a render takes
    /// one, so a stored preview is served whatever is being rendered); not stored yet.
    private func render(_ document: DocumentRecord, request: RenderRequest, context: ServerContext) async throws
        -> DocumentPipeline.PreviewOutcome {
        try await renders.admitting(document, context: context, testHooks: settings.testHooks) {
            let started = ContinuousClock.now
            let pipeline = documents.pipeline
            let made = try await offload.render { () throws(PreviewError) in
                try pipeline.previewToKeep(source: document.sha256, kind: document.kind, request: request)
            }
            Timer(label: "docpreview_preview_render_seconds", dimensions: [("kind", document.kind.category.rawValue)])
                .recordNanoseconds(started.duration(to: .now).nanoseconds)
            return made
        }
    }

    /// The request's page, size and format.
    static func renderRequest(_ request: Request) throws -> RenderRequest {
        let query = request.uri.queryParameters
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int(text), range.contains(value) else { throw APIError.badRequest("\(name) must be in \(range)") }
            return value
        }
        var wanted = RenderRequest(page: try number("page", 1...1_000_000) ?? 1, width: try number("width", 1...RenderRequest.maxEdge),
                                   height: try number("height", 1...RenderRequest.maxEdge))
        if let format = query.get("format") {
            guard let parsed = RenderRequest.Format(rawValue: format) else { throw APIError.badRequest("format must be jpeg, png or webp") }
            wanted.format = parsed
        }
        return wanted
    }

    /// The bytes of blob `hash` when they still hash to its name; nil when it is missing or damaged.
    static func intactBytes(of hash: BlobHash, in store: Store) -> [UInt8]? {
        guard let bytes = try? store.blobs.read(hash), BlobHash.of(bytes) == hash else { return nil }
        return bytes
    }
}

extension RenderRequest {
    var asThumbnail: RenderRequest {
        var request = RenderRequest.thumbnail
        request.page = page
        request.format = format
        return request
    }
}
