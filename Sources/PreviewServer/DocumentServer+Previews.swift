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
import ServiceLifecycle

/// A document's status and its previews, stored or rendered on demand.
extension DocumentServer {
    func document(_ id: String) throws -> Response {
        guard let document = try store.index.document(id: id) else { throw ErrorResponse(.notFound, "No document \(id).") }
        return try JSON.response(DocumentView(document))
    }

    func preview(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        let index = store.index
        guard let document = try await offload.run(.reads, { try index.document(id: id) }) else {
            throw ErrorResponse(.notFound, "No document \(id).")
        }
        let kind = document.kind
        let query = request.uri.queryParameters
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int(text), range.contains(value) else { throw BadRequest(message: "\(name) must be in \(range)") }
            return value
        }
        var previewRequest = RenderRequest(page: try number("page", 1...1_000_000) ?? 1,
                                           width: try number("width", 1...RenderRequest.maxEdge),
                                           height: try number("height", 1...RenderRequest.maxEdge))
        if let format = query.get("format") {
            guard let parsed = RenderRequest.Format(rawValue: format) else { throw BadRequest(message: "format must be jpeg, png or webp") }
            previewRequest.format = parsed
        }
        if previewRequest.width == nil && previewRequest.height == nil && kind.category != .pdf { previewRequest = previewRequest.asThumbnail }
        previewRequest = previewRequest.onServedEdges

        switch document.status {
        case .done: break
        case .failed:
            throw ErrorResponse(document.error ?? PreviewError(.corrupt, "The document could not be processed."))
        case .queued, .processing:
            return try JSON.response(["status": document.status.rawValue, "document_id": document.id], status: .accepted,
                                     headers: [.retryAfter: "2"])
        }
        if document.previewStatus == .noPreview {
            throw ErrorResponse(.unsupportedType, "No preview is made for \(kind.label).")
        }
        let (pipeline, store, wanted) = (pipeline, store, previewRequest)
        // A preview already made is found on the reads lane; only a render goes to the renders lane.
        let hit = try await offload.run(.reads) { () throws -> DerivativeRecord? in
            do throws(PreviewError) {
                return try pipeline.cachedPreview(source: document.sha256, kind: kind, request: wanted)
            } catch {
                throw ErrorResponse(error)
            }
        }
        var record: DerivativeRecord
        // A preview rendered for this request is answered from the bytes the renderer returned.
        var rendered: [UInt8]?
        if let hit {
            record = hit
        } else {
            // Only a render takes a slot: a stored preview is served whatever is being rendered.
            switch await renders.enter(owner: document.owner, document: document.id) {
            case .entered: break
            case .full, .waitedTooLong:
                throw ErrorResponse(PreviewError(.queueFull, "Too many previews are being made right now; try again in a moment."),
                                    headers: [.retryAfter: "1"])
            }
            defer { renders.leave(owner: document.owner, document: document.id) }
            if settings.testHooks { try await Task.sleep(for: .milliseconds(500)) }
            // A client that went away while this request waited gets nothing: no render is started for it.
            if await ClientPresence.hasGone(context.channel) {
                context.logger.info("preview skipped: the client disconnected", metadata: ["preview.document": "\(id)"])
                throw RequestRefusal(status: .init(code: 499, reasonPhrase: "Client Closed Request"), code: "client_gone",
                                     message: "The client disconnected.")
            }
            let started = ContinuousClock.now
            let made = try await offload.render { () throws(PreviewError) in
                try pipeline.preview(source: document.sha256, kind: kind, request: wanted)
            }
            record = made.record
            rendered = made.rendered?.bytes
            Timer(label: "docpreview_preview_render_seconds", dimensions: [("kind", kind.category.rawValue)])
                .recordNanoseconds(started.duration(to: .now).nanoseconds)
        }
        // Private: a preview is one owner's document; shared caches (proxies, CDNs) must not keep it.
        var headers: HTTPFields = [.eTag: "\"\(record.resultSha256.hex)\"", .cacheControl: "private, max-age=31536000, immutable"]
        if request.headers[.ifNoneMatch] == headers[.eTag] { return Response(status: .notModified, headers: headers) }
        // A preview is small: checked against its name before it is served. A damaged or missing one
        // is rendered again, which rewrites its blob.
        let resultHash = record.resultSha256
        var bytes: [UInt8]?
        if let rendered {
            bytes = rendered
        } else {
            bytes = try await offload.run(.reads) { Self.intactBytes(of: resultHash, in: store) }
        }
        if bytes == nil {
            context.logger.error("a stored preview is damaged or missing; rendering it again",
                                 metadata: ["preview.document": "\(id)", "preview.derivative": "\(record.resultSha256)"])
            Counter(label: "docpreview_damaged_blobs_total", dimensions: [("kind", "preview")]).increment()
            record = try await offload.render { () throws(PreviewError) in
                try pipeline.preview(source: document.sha256, kind: kind, request: wanted, repairing: true).record
            }
            let repaired = record.resultSha256
            bytes = try await offload.run(.reads) { Self.intactBytes(of: repaired, in: store) }
            guard bytes != nil else { throw ErrorResponse(.internal, "The preview could not be stored intact; try again later.") }
            headers[.eTag] = "\"\(repaired.hex)\""
        }
        headers[.contentType] = previewRequest.format.mime
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes ?? [])))
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
