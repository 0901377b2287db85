import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// How an upload request is let in and received, the same for every way a document arrives
/// (`POST /v1/documents`, a resumable upload's appends, the pages' upload form): a slot, room in
/// the queue, the pace rules, and the body streamed into the store.
package struct UploadIntake: Sendable {
    let documents: DocumentService
    let settings: ServerSettings
    /// Bounds the uploads being received (connections, staging files, disk writes), overall and per client.
    let uploads: UploadSlots
    /// How many jobs wait, read at most once a second rather than counted for every upload.
    let queueDepth: QueueDepth

    package struct Accepted {
        var body: AcceptedBody
        package var owner: String
    }

    struct AcceptedBody: Encodable {
        var status: JobRecord.Status
        var documentID: String
        var jobID: Int64
        var sha256: String
    }

    /// A slot for an upload request from `context`'s client, or 503 with `Retry-After` when none is free.
    func enter(_ context: ServerContext) throws -> UploadSlots.Ticket {
        guard let ticket = uploads.enter(client: context.clientAddress, channel: context.channel) else {
            throw APIError(.queueFull, "Too many uploads are arriving right now; try again shortly.", headers: [.retryAfter: "5"])
        }
        return ticket
    }

    /// Room in the queue for one more document, or 503 with `Retry-After`.
    func admitQueued() async throws {
        let (documents, queueDepth) = (documents, queueDepth)
        let queued = try await queueDepth.current { try await documents.queuedJobs() }
        if queued > settings.maxQueuedJobs {
            throw APIError(.queueFull, "Too many documents are waiting; try again later.", headers: [.retryAfter: "30"])
        }
    }

    /// Admits the upload (a slot, room in the queue, a declared length within the limit), streams
    /// the body into the store's tmp/, then hands it to ``DocumentService/accept(_:labels:)``, which
    /// validates it like the CLI, publishes the blob and commits the document and its job together.
    /// Only then is the upload acknowledged.
    package func receive(_ request: Request, context: ServerContext) async throws -> Accepted {
        let ticket = try enter(context)
        defer { uploads.leave(ticket) }
        let documents = documents
        let limit = documents.limits.maxFileBytes
        try await admitQueued()
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            ServiceMetrics.uploads(outcome: "too_large")
            throw UploadReceiver.tooLarge(limit)
        }
        let writer = try documents.receiving()
        var receiver = UploadReceiver(pace: pace(for: ticket))
        let query = request.queryFields
        for name in UploadReceiver.labelFields { receiver.fields[name] = query.get(name) }
        try await receiver.receive(request.body, contentType: request.headers[.contentType], into: writer, limit: limit)
        try writer.finish()
        if let expected = context.formCSRFToken {
            guard let presented = receiver.formFields["csrf"], Credentials.constantTimeEqual(Array(presented.utf8), Array(expected.utf8)) else {
                throw APIError(.forbidden, "This form has expired; reload the page and try again.")
            }
        }
        let fields = receiver.fields
        let labels = try DocumentLabels(
            owner: fields["owner"], typeID: fields["type"], title: fields["title"],
            filename: fields["filename"] ?? receiver.fileName, description: fields["description"],
            school: fields["school"], rules: documents.rules)
        // Validation reads the staged file on the writes lane, publishing flushes it, the rows commit: awaited.
        let (document, job): (Document, JobRecord)
        do {
            (document, job) = try await documents.accept(writer, labels: labels)
        } catch let refusal as PreviewError where refusal.code.disposition == .refused {
            ServiceMetrics.uploads(outcome: "refused")
            context.logger.info("upload refused", metadata: ["preview.code": "\(refusal.code)"])
            throw refusal
        }
        queueDepth.noteEnqueued()
        ServiceMetrics.uploads(outcome: "accepted")
        // context.logger carries Hummingbird's request id.
        context.logger.info(
            "upload accepted",
            metadata: [
                "preview.document": "\(document.id)", "preview.job": "\(job.id ?? 0)",
                "preview.sha256": "\(document.sha256)"
            ])
        return Accepted(
            body: AcceptedBody(status: job.status, documentID: document.id, jobID: job.id ?? 0, sha256: document.sha256.hex),
            owner: document.owner)
    }

    /// The time rules of an upload request holding `ticket`.
    func pace(for ticket: UploadSlots.Ticket) -> UploadPace {
        var pace = UploadPace(deadline: .now + settings.uploadTimeout)
        pace.minimumBytesPerSecond = settings.minimumUploadBytesPerSecond
        pace.progress = { [uploads] bytes in
            guard uploads.received(bytes, for: ticket) else { throw APIError.uploadTimedOut("The upload arrived too slowly; try again.") }
        }
        return pace
    }
}
