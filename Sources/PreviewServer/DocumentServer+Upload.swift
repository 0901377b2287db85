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

/// `POST /v1/documents` and the page's upload form: a document arrives.
extension DocumentServer {
    struct Accepted {
        var body: AcceptedBody
        var owner: String
    }

    struct AcceptedBody: Encodable {
        var status: JobRecord.Status
        var documentID: String
        var jobID: Int64
        var sha256: String

        enum CodingKeys: String, CodingKey {
            case status, sha256
            case documentID = "document_id"
            case jobID = "job_id"
        }
    }

    /// Streams the body into the store's tmp/, validates it like the CLI, publishes the blob, then
    /// commits the document and its job together. Only then is the upload acknowledged.
    func upload(_ request: Request, context: ServerContext) async throws -> Accepted {
        guard let ticket = uploads.enter(client: context.clientAddress, channel: context.channel) else {
            throw ErrorResponse(PreviewError(.queueFull, "Too many uploads are arriving right now; try again shortly."),
                                headers: [.retryAfter: "5"])
        }
        defer { uploads.leave(ticket) }
        let limit = pipeline.configuration.limits.maxFileBytes
        let (queue, queueDepth) = (queue, queueDepth)
        let queued = try await offload.run(.reads) { try queueDepth.current { try queue.counts()[.queued, default: 0] } }
        if queued > settings.maxQueuedJobs {
            throw ErrorResponse(PreviewError(.queueFull, "Too many documents are waiting; try again later."), headers: [.retryAfter: "30"])
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            Counter(label: "docpreview_uploads_total", dimensions: [("outcome", "too_large")]).increment()
            throw UploadReceiver.tooLarge(limit)
        }
        let writer = try BlobWriter(storage: store.blobs)
        var receiver = UploadReceiver(deadline: .now + settings.uploadTimeout)
        receiver.minimumBytesPerSecond = settings.minimumUploadBytesPerSecond
        let uploads = uploads
        receiver.progress = { bytes in
            guard uploads.received(bytes, for: ticket) else {
                throw RequestRefusal(status: .requestTimeout, code: "timeout", message: "The upload arrived too slowly; try again.")
            }
        }
        let query = request.uri.queryParameters
        for name in ["type", "filename", "owner", "title"] { receiver.fields[name] = query.get(name) }
        try await receiver.receive(request.body, contentType: request.headers[.contentType], into: writer, limit: limit)
        try writer.finish()
        if let expected = context.formCSRFToken {
            guard let presented = receiver.formFields["csrf"], Credentials.constantTimeEqual(Array(presented.utf8), Array(expected.utf8)) else {
                throw ErrorResponse(.forbidden, "This form has expired; reload the page and try again.")
            }
        }

        let fields = receiver.fields
        let type: DocumentType?
        if let id = fields["type"], !id.isEmpty {
            guard let known = pipeline.configuration.rules.type(id: id) else {
                throw BadRequest(message: "unknown document type \(id)")
            }
            type = known
        } else {
            type = nil
        }
        // The name only lends its extension and a display name; it is never a path.
        let filename = (fields["filename"] ?? receiver.fileName ?? "upload").split(separator: "/").last.map(String.init) ?? "upload"
        // Labels are shown and indexed, never interpreted: control characters (NUL among them, which
        // PostgreSQL cannot store in text) have no place in them.
        for (name, value) in [("owner", fields["owner"]), ("title", fields["title"]), ("filename", filename)]
        where value?.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) == true {
            throw BadRequest(message: "\(name) must not contain control characters")
        }
        let (pipeline, store) = (pipeline, store)
        let (owner, title) = (fields["owner"] ?? "", fields["title"].flatMap { $0.isEmpty ? nil : $0 } ?? filename)
        // Validation reads the staged file, publishing fsyncs it, the rows commit: off the cooperative pool.
        let stored = try await offload.run(.writes) { () throws -> Result<(DocumentRecord, JobRecord), PreviewError> in
            let verdict = Validator(configuration: pipeline.configuration)
                .validate(try ByteProbe(contentsOf: writer.stagedURL), fileName: filename, declaredType: type)
            if let refusal = verdict.refusal { return .failure(refusal) }
            let hash = try writer.finish()
            let hasRenderer = pipeline.renderers.renderer(for: verdict.kind) != nil
            let record = DocumentRecord(
                id: UUID().uuidString.lowercased(), owner: owner, type: type?.id ?? "", title: title, filename: filename, sha256: hash,
                kind: verdict.kind, mime: verdict.kind.mime, size: writer.size, facts: MediaFacts(), version: 0,
                previewStatus: hasRenderer ? PreviewStatus.pending : PreviewStatus.noPreview, createdAt: Date())
            // Published and recorded under the reference lock: `gc` cannot remove the blob (new, or
            // the same bytes stored long ago) before the row names it.
            return .success(try store.blobs.whileReferencing(exclusive: false) {
                _ = try writer.publish(as: .original)
                return try queue.enqueue(record)
            })
        }
        let (document, job): (DocumentRecord, JobRecord)
        switch stored {
        case let .success(stored): (document, job) = stored
        case let .failure(refusal):
            Counter(label: "docpreview_uploads_total", dimensions: [("outcome", "refused")]).increment()
            context.logger.info("upload refused", metadata: ["preview.code": "\(refusal.code)"])
            throw ErrorResponse(refusal)
        }
        let hash = document.sha256
        queueDepth.noteEnqueued()
        arrivals?.announce()
        Counter(label: "docpreview_uploads_total", dimensions: [("outcome", "accepted")]).increment()
        // context.logger carries Hummingbird's request id.
        context.logger.info("upload accepted", metadata: ["preview.document": "\(document.id)", "preview.job": "\(job.id ?? 0)",
                                                          "preview.sha256": "\(hash)"])
        return Accepted(body: AcceptedBody(status: job.status, documentID: document.id, jobID: job.id ?? 0, sha256: hash.hex),
                        owner: document.owner)
    }
}
