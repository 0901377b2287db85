import Foundation
import HTTPTypes
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewStore

/// The IETF draft's front door: an upload created by `POST /v1/uploads` or `POST /v1/documents`
/// with `Upload-Complete` (announced by a `104`, ``UploadAnnouncement``), its offset read by `HEAD`,
/// appended to by `PATCH`, cancelled by `DELETE` at `/v1/uploads/{id}`.
extension UploadsController {
    /// Answers a completed upload's final response and `HEAD` with the document it became.
    static let documentField = HTTPField.Name("DocPreview-Document-ID")!

    func registerDraft(on routes: RouteTable) {
        routes.add(.post, "/v1/documents") { request, context in
            if let draft = creation(request) { return try await create(request, context: context, draft: draft) }
            let accepted = try await intake.receive(request, context: context)
            return try JSON.response(accepted.body, status: .accepted, headers: [.location: "/v1/documents/\(accepted.body.documentID)"])
        }
        routes.add(.post, Self.path) { request, context in
            guard let draft = creation(request) else {
                throw APIError.badRequest(
                    "An upload here speaks the resumable-upload draft: Upload-Draft-Interop-Version "
                        + spokenDrafts.sorted().map(String.init).joined(separator: " or ") + ", with Upload-Complete.")
            }
            return try await create(request, context: context, draft: draft)
        }
        routes.add(.options, Self.path) { request, _ in
            var headers = HTTPFields()
            headers[HTTPField.Name("Accept-Patch")!] = ResumableDraft.partialUpload
            let draft = ResumableDraft(request.head, spoken: spokenDrafts) ?? ResumableDraft(version: 8)
            headers.set(draft.limits(documents.uploadPolicy, maxFileBytes: documents.limits.maxFileBytes, secondsLeft: nil))
            return Response(status: .noContent, headers: headers)
        }
        routes.add(.head, "\(Self.path)/:id") { request, context in
            let draft = try draft(of: request)
            return try await answering(draft) {
                // A request still appending (its client gave up on it) ends first: the offset is final.
                let session = try await documents.settledUpload(try context.parameters.require("id"), front: .draft)
                var headers = draft.state(session)
                headers.set(limits(draft, session))
                headers[.cacheControl] = "no-store"
                if let document = session.documentID { headers[Self.documentField] = document }
                return Response(status: .noContent, headers: headers)
            }
        }
        routes.add(.patch, "\(Self.path)/:id") { request, context in
            let draft = try draft(of: request)
            return try await answering(draft) {
                let id = try context.parameters.require("id")
                guard draft.acceptsAppend(contentType: request.headers[.contentType]) else {
                    throw APIError(.unsupportedType, "An append is sent as \(ResumableDraft.partialUpload).")
                }
                guard let offset = try Self.byteCount(request, ResumableDraft.offset) else { throw APIError.badRequest("Upload-Offset is required") }
                let ends = draft.completes(request.head) ?? true
                let length = try declaredLength(request, ends: ends, offset: offset)
                let appended = try await append(
                    request, context: context, to: id, through: .draft, at: offset, length: length, ends: ends,
                    checksum: nil, metric: "draft-\(draft.version)")
                return try answer(appended, draft: draft, created: false, request: request)
            }
        }
        routes.add(.delete, "\(Self.path)/:id") { request, context in
            let draft = try draft(of: request)
            return try await answering(draft) {
                try await cancel(context.parameters.require("id"), front: .draft, context: context)
                var headers = HTTPFields()
                headers[ResumableDraft.interopVersion] = "\(draft.version)"
                return Response(status: .noContent, headers: headers)
            }
        }
    }

    /// The draft version of a request that creates a resumable upload: the draft's fields, in a
    /// version spoken here, on a body that is the file itself (a form is read whole, not resumed).
    private func creation(_ request: Request) -> ResumableDraft? {
        guard let draft = ResumableDraft(request.head, spoken: spokenDrafts), draft.completes(request.head) != nil,
            request.headers[.contentType]?.lowercased().hasPrefix("multipart/") != true
        else { return nil }
        return draft
    }

    /// The draft version of a request to an upload resource: the one it names, or 6 when it names
    /// none; one not spoken here is refused.
    private func draft(of request: Request) throws -> ResumableDraft {
        guard let text = request.headers[ResumableDraft.interopVersion] else { return ResumableDraft(version: 6) }
        guard let draft = ResumableDraft(request.head, spoken: spokenDrafts) else {
            throw APIError.badRequest(
                "Upload-Draft-Interop-Version \(text.prefix(8)) is not spoken here; "
                    + spokenDrafts.sorted().map(String.init).joined(separator: " and ") + " are.")
        }
        return draft
    }

    /// Creates upload `draft` announced (or a new one) and appends the request's body to it.
    private func create(_ request: Request, context: ServerContext, draft: ResumableDraft) async throws -> Response {
        try await answering(draft) {
            try await intake.admitQueued()
            let ends = draft.completes(request.head) ?? true
            let length = try declaredLength(request, ends: ends, offset: 0)
            let announced = request.headers[UploadAnnouncement.header].flatMap { UploadSession.isWellFormedID($0) ? $0 : nil }
            var fields = fields(request)
            if fields["filename"] == nil, let disposition = request.headers[HTTPField.Name("Content-Disposition")!] {
                fields["filename"] = UploadReceiver.dispositionParameters(disposition)["filename"]
            }
            let session = try await documents.createUpload(
                id: announced ?? UploadSession.newID(), owner: fields["owner"] ?? "",
                client: context.clientAddress, front: .draft, fields: fields,
                length: length)
            ServiceMetrics.resumableUploads(front: "draft-\(draft.version)")
            let appended = try await append(
                request, context: context, to: session.id, through: .draft, at: 0, length: length, ends: ends,
                checksum: nil, metric: "draft-\(draft.version)")
            return try answer(appended, draft: draft, created: true, request: request)
        }
    }

    /// The length a request declares: `Upload-Length`, or, when its body ends the upload and has a
    /// `Content-Length`, where that ends; the two must agree.
    private func declaredLength(_ request: Request, ends: Bool, offset: Int) throws -> Int? {
        let declared = try Self.byteCount(request, ResumableDraft.length)
        guard ends, let content = try Self.byteCount(request, .contentLength) else { return declared }
        let (end, overflow) = offset.addingReportingOverflow(content)
        guard !overflow, declared == nil || declared == end else { throw UploadRefusal.inconsistentLength }
        return end
    }

    /// The final answer to a creation or an append: the one-shot upload's `202` once the upload
    /// completed, else `201` (a creation, with the upload's URL) or `204` with the offset.
    private func answer(_ appended: Appended, draft: ResumableDraft, created: Bool, request: Request) throws -> Response {
        guard let completion = appended.completion else {
            var headers = draft.state(appended.session)
            headers.set(limits(draft, appended.session))
            if created { headers[.location] = uploadURL(appended.session.id, request: request) }
            return Response(status: created ? .created : .noContent, headers: headers)
        }
        var headers = draft.completeness(true)
        headers[ResumableDraft.interopVersion] = "\(draft.version)"
        headers[.location] = "/v1/documents/\(completion.document.id)"
        headers[Self.documentField] = completion.document.id
        return try JSON.response(accepted(completion), status: .accepted, headers: headers)
    }

    /// `Upload-Limit` for `session`, its time left by the service clock.
    private func limits(_ draft: ResumableDraft, _ session: UploadSession) -> HTTPFields {
        let left = session.status == .open ? session.expiresAt - documents.clock.unixSeconds : nil
        return draft.limits(documents.uploadPolicy, maxFileBytes: documents.limits.maxFileBytes, secondsLeft: left)
    }

    /// `body`'s answer, or its failure in the draft's words: the version, the offset a `409` wants,
    /// the limits with a `413`.
    private func answering(_ draft: ResumableDraft, _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch {
            guard var failure = Self.apiError(error) else { throw error }
            failure.headers[ResumableDraft.interopVersion] = "\(draft.version)"
            switch error as? UploadRefusal {
            case let .offsetMismatch(expected)?:
                failure.headers[ResumableDraft.offset] = "\(expected)"
                failure.headers.set(draft.completeness(false))
            case let .completed(session)?:
                failure.headers.set(draft.state(session))
            default:
                if failure.error.code == .fileTooLarge {
                    failure.headers.set(draft.limits(documents.uploadPolicy, maxFileBytes: documents.limits.maxFileBytes, secondsLeft: nil))
                }
            }
            throw failure
        }
    }

    /// The absolute URL of upload `id` at the host `request` was sent to.
    func uploadURL(_ id: String, request: Request, under path: String = Self.path) -> String {
        guard let authority = request.head.authority ?? request.headers[HTTPField.Name("Host")!] else { return "\(path)/\(id)" }
        return "\(settings.tls == nil ? "http" : "https")://\(authority)\(path)/\(id)"
    }

    /// Cancels upload `id` of `front`, ending this process's request at work on it first.
    func cancel(_ id: String, front: UploadSession.Front, context: ServerContext) async throws {
        let channel = context.channel
        let claimed = try await documents.claimUpload(id, front: front) { channel?.close(promise: nil) }
        do {
            try await documents.cancelUpload(id)
            await claimed.release()
        } catch {
            await claimed.release()
            throw error
        }
    }

    /// An upload's failure as the API answers it (each door adds its protocol's fields); nil for
    /// an error that is no answer of ours.
    static func apiError(_ error: any Error) -> APIError? {
        switch error {
        case let refusal as UploadRefusal:
            switch refusal {
            case .notFound: APIError(.notFound, "No such upload.")
            case .expired: APIError(.gone, "This upload ran out of time; start it again.")
            case let .offsetMismatch(expected): APIError(.conflict, "The upload is at offset \(expected); append from there.")
            case .completed: APIError(.badRequest, "The upload is complete; nothing more can be appended.")
            case .inconsistentLength: APIError(.badRequest, "The upload's length does not match what was declared or sent.")
            case .checksumMismatch: APIError(.checksumMismatch, "The bytes sent do not match their checksum; they were not kept.")
            }
        case let error as APIError: error
        case let error as PreviewError: APIError(error)
        default: StoreFault(error).map { APIError($0.previewError) }
        }
    }
}
