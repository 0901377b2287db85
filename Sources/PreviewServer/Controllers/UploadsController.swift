import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// Resumable uploads, two front doors over one upload-session store (``DocumentService``'s):
/// the IETF draft at `/v1/uploads` (and on `POST /v1/documents`, `UploadsController+Draft`) and
/// tus 1.0 at `/v1/uploads/tus` (`UploadsController+Tus`). Whatever the door, an append is one
/// upload request (a slot, the pace rules), the only request of this process at work on its
/// upload, and keeps what arrived when its connection drops; the last byte makes the upload an
/// ordinary document, answered like `POST /v1/documents`.
struct UploadsController {
    static let path = "/v1/uploads"
    let documents: DocumentService
    let settings: ServerSettings
    /// The slots, the queue's room and the pace rules every upload request is held to.
    let intake: UploadIntake

    func register(on routes: RouteTable) {
        registerDraft(on: routes)
        registerTus(on: routes)
    }

    /// The draft versions this server speaks.
    var spokenDrafts: Set<Int> { settings.uploadDraftLatest ? ResumableDraft.stable.union(ResumableDraft.latest) : ResumableDraft.stable }

    /// What an append did: the upload after it, and the document it became when it completed it.
    struct Appended {
        var session: UploadSession
        var completion: (document: Document, jobID: Int64?)?
    }

    /// Appends `request`'s body to upload `id` (of `front`; `metric` labels its counts) at `offset`,
    /// as an upload request of its own (a slot, the pace rules) and this process's only request at
    /// work on the upload: one before it is ended first. `length` declares the upload's length; `ends` says the body is its last
    /// byte (the draft's `Upload-Complete: ?1`), else it completes once its declared length has
    /// arrived (tus). With `checksum`, the bytes are kept only if they match it.
    func append(
        _ request: Request, context: ServerContext, to id: String, through front: UploadSession.Front, at offset: Int, length: Int?,
        ends: Bool, checksum: UploadChecksum?, metric: String
    ) async throws -> Appended {
        let ticket = try intake.enter(context)
        defer { intake.uploads.leave(ticket) }
        let channel = context.channel
        let claimed = try await documents.claimUpload(id, front: front) { channel?.close(promise: nil) }
        do {
            let appended = try await append(
                request, claimed: claimed, through: front, at: offset, length: length, ends: ends,
                checksum: checksum, pace: intake.pace(for: ticket))
            await claimed.release()
            ServiceMetrics.resumableAppends(front: metric, outcome: "kept")
            return appended
        } catch let UploadRefusal.completed(session) where Self.replays(request, completing: session, from: offset) {
            // The request that completed the upload, sent again (its answer was lost): the same answer.
            await claimed.release()
            guard let documentID = session.documentID else { throw UploadRefusal.completed(session) }
            return Appended(session: session, completion: (try await documents.document(id: documentID), session.jobID))
        } catch {
            await claimed.release()
            ServiceMetrics.resumableAppends(front: metric, outcome: Self.outcome(error))
            throw error
        }
    }

    /// Whether `request`, appending from `offset`, would end exactly where completed `session` ended.
    private static func replays(_ request: Request, completing session: UploadSession, from offset: Int) -> Bool {
        guard let content = ResumableDraft.byteCount(request.headers[.contentLength]) else { return false }
        return offset.addingReportingOverflow(content) == (session.received, false)
    }

    private func append(
        _ request: Request, claimed: ClaimedUpload, through front: UploadSession.Front, at offset: Int, length: Int?,
        ends: Bool, checksum: UploadChecksum?, pace: UploadPace
    ) async throws -> Appended {
        let append = try await documents.beginAppend(to: claimed, through: front, at: offset, length: length, wholeRequest: checksum != nil)
        var (pace, checksum) = (pace, checksum)
        do {
            for try await buffer in request.body {
                try pace.count(buffer.readableBytes)
                checksum?.update(buffer.readableBytesView)
                try await append.write(buffer.readableBytesView)
            }
        } catch {
            // A dropped connection, a slow one, or bytes past the length: what arrived is kept,
            // unless a checksum covers the whole body, which can no longer be verified.
            if checksum == nil { await append.interrupted() } else { append.discard() }
            throw error
        }
        if let checksum, !checksum.matches() {
            append.discard()
            throw UploadRefusal.checksumMismatch
        }
        let session = try await append.finish(ending: ends)
        guard ends || session.isFullyReceived else { return Appended(session: session) }
        let completion = try await documents.completeUpload(session)
        intake.queueDepth.noteEnqueued()
        ServiceMetrics.uploads(outcome: "accepted")
        return Appended(session: try await documents.upload(id: session.id), completion: completion)
    }

    /// The labels of a new upload: the query's, then `extra` (tus metadata) where the query says nothing.
    func fields(_ request: Request, extra: [String: String] = [:]) -> [String: String] {
        var fields = extra
        let query = request.queryFields
        for name in UploadReceiver.labelFields {
            if let value = query.get(name) { fields[name] = value }
        }
        return fields
    }

    /// The body a completed upload is answered with: a one-shot upload's.
    func accepted(_ completion: (document: Document, jobID: Int64?)) -> UploadIntake.AcceptedBody {
        UploadIntake.AcceptedBody(
            status: completion.document.jobStatus ?? .queued, documentID: completion.document.id,
            jobID: completion.jobID ?? 0, sha256: completion.document.sha256.hex)
    }

    /// A metrics label for how an append ended.
    private static func outcome(_ error: any Error) -> String {
        switch error {
        case UploadRefusal.checksumMismatch: "checksum_mismatch"
        case UploadRefusal.offsetMismatch: "offset_mismatch"
        case is UploadRefusal: "refused"
        case let error as PreviewError where error.code.disposition == .refused: "refused"
        default: "interrupted"
        }
    }

    /// A byte count sent in a header, or 400 naming it.
    static func byteCount(_ request: Request, _ name: HTTPField.Name) throws -> Int? {
        guard let text = request.headers[name] else { return nil }
        guard let count = ResumableDraft.byteCount(text) else { throw APIError.badRequest("\(name) must be a byte count") }
        return count
    }
}
