import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// Resumable uploads (DESIGN §8): one upload-session store under both front doors (the IETF draft,
/// tus 1.0). An upload's bytes are kept in parts as they arrive, each durable before the offset
/// counts it; once all arrived, the parts are put together into one staged blob and accepted like
/// any upload, so validation, dedup and the queue are the one-shot upload's own.
extension DocumentService {
    /// The uploads' store, or `unavailable` where this service has none.
    func resumableUploads() throws -> ResumableUploads {
        guard let resumable else { throw PreviewError(.unavailable, "This server keeps no resumable uploads.") }
        return resumable
    }

    /// What resumable uploads may cost.
    package var uploadPolicy: UploadPolicy { resumable?.policy ?? UploadPolicy() }

    /// Starts upload `id` of `owner`'s file from `client` under the labels in `fields` (type, title,
    /// filename, description, school), `length` bytes long when known. Labels, an extension the
    /// type does not allow and a length over the limit are refused now, before a byte is sent; so
    /// is a new upload past the caps (429).
    package func createUpload(
        id: String = UploadSession.newID(), owner: String, client: String, front: UploadSession.Front,
        fields: [String: String], length: Int?
    ) async throws -> UploadSession {
        let uploads = try resumableUploads()
        let labels = try labels(owner: owner, fields)
        // What the whole file would be refused for whatever its bytes turn out to be is refused now.
        if let refusal = Validator(configuration: pipeline.configuration).refusal(fileName: labels.filename, size: length, declaredType: labels.type)
        {
            throw refusal
        }
        let now = clock.unixSeconds
        let session = UploadSession(
            id: id, owner: owner, client: client, front: front, labels: fields, length: length,
            createdAt: now, expiresAt: now + Int(uploads.policy.lifetime))
        do {
            try await uploads.sessions.create(session, caps: uploads.policy.caps, reserved: limits.maxFileBytes)
        } catch let cap as UploadSessions.CapReached {
            let whose = cap.who == .owner ? "This owner" : "This client"
            let what =
                switch cap.limit {
                case let .sessions(count): "has \(count) uploads open"
                case let .bytes(bytes): "would stage more than \(Limits.describe(byteCount: bytes))"
                }
            throw PreviewError(.queueFull, "\(whose) \(what); finish or cancel one first.")
        }
        return session
    }

    /// Upload `id` as it stands: refused when unknown or cancelled (`notFound`) or out of time (`expired`).
    package func upload(id: String) async throws -> UploadSession {
        guard let session = try await resumableUploads().sessions.session(id: id), session.status != .cancelled else { throw UploadRefusal.notFound }
        if session.status == .open, session.expiresAt <= clock.unixSeconds { throw UploadRefusal.expired }
        return session
    }

    /// Becomes the one request appending to upload `id` of `front`: of this process, ending the one
    /// before it (`stop` ends this one in turn), and of every host, waiting for another host's
    /// request to keep what it received (its turn ends then, or lapses after
    /// ``UploadPolicy/turnSeconds`` without news). An upload that is not `front`'s, or not there, is
    /// refused (`notFound`) before anyone's request is ended. ``ClaimedUpload/release()`` gives it up.
    package func claimUpload(_ id: String, front: UploadSession.Front, stop: @escaping @Sendable () -> Void) async throws -> ClaimedUpload {
        let uploads = try resumableUploads()
        _ = try await upload(id: id, front: front)
        let claimed = ClaimedUpload(id: id, token: await uploads.active.claim(id, stop: stop), uploads: uploads)
        do {
            try await awaitTurn(at: id, uploads, taking: true)
        } catch {
            await claimed.release()
            throw error
        }
        return claimed
    }

    /// Upload `id` of `front` once no request appends to it: this process's is ended, another host's
    /// waited for, as ``claimUpload(_:front:stop:)`` does, but nothing is held, so the offset read is
    /// final and no later request has this one to end.
    package func settledUpload(_ id: String, front: UploadSession.Front) async throws -> UploadSession {
        let uploads = try resumableUploads()
        _ = try await upload(id: id, front: front)
        await uploads.active.settle(id)
        try await awaitTurn(at: id, uploads, taking: false)
        return try await upload(id: id, front: front)
    }

    /// Upload `id` as it stands, refused (`notFound`) unless it came in through `front`.
    package func upload(id: String, front: UploadSession.Front) async throws -> UploadSession {
        let session = try await upload(id: id)
        guard session.front == front else { throw UploadRefusal.notFound }
        return session
    }

    /// Waits while another host's turn at upload `id` lasts; `taking` this process's turn once it is free.
    private func awaitTurn(at id: String, _ uploads: ResumableUploads, taking: Bool) async throws {
        let giveUp = ContinuousClock.now + .seconds(uploads.policy.turnSeconds)
        while ContinuousClock.now < giveUp {
            if taking, try await takeTurn(at: id, uploads) { return }
            guard let session = try await uploads.sessions.session(id: id), session.status == .open,
                let other = session.appender, other != ResumableUploads.process,
                (session.appendingUntil ?? 0) > clock.unixSeconds
            else { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Takes (or renews) this process's turn at upload `id`: false while another host's lasts.
    func takeTurn(at id: String, _ uploads: ResumableUploads) async throws -> Bool {
        let now = clock.unixSeconds
        return try await uploads.sessions.takeAppending(id, appender: ResumableUploads.process, now: now, until: now + uploads.policy.turnSeconds)
    }

    /// Starts appending to upload `claimed` at `offset`: refused unless the upload came in through
    /// `front` and is open there. `length` declares the upload's length (it must agree with one
    /// declared before); with `wholeRequest`, nothing is kept until the request ends (its checksum
    /// is checked first).
    package func beginAppend(
        to claimed: ClaimedUpload, through front: UploadSession.Front, at offset: Int, length: Int?,
        wholeRequest: Bool
    ) async throws -> UploadAppend {
        let uploads = try resumableUploads()
        let session = try await upload(id: claimed.id, front: front)
        if session.status == .complete { throw UploadRefusal.completed(session) }
        guard session.received == offset else { throw UploadRefusal.offsetMismatch(expected: session.received) }
        if let length {
            if length > limits.maxFileBytes { throw pipeline.configuration.fileTooLarge }
            if let declared = session.length, declared != length { throw UploadRefusal.inconsistentLength }
            if length < session.received { throw UploadRefusal.inconsistentLength }
        }
        var judgeHead: UploadAppend.HeadJudge?
        if offset == 0 {
            // The first bytes are judged as they arrive, so a file they already refuse goes no further.
            let (validator, labels) = (Validator(configuration: pipeline.configuration), try labels(owner: session.owner, session.labels))
            judgeHead = { head, size in validator.refusal(forHead: head, size: size, fileName: labels.filename, declaredType: labels.type) }
        }
        return UploadAppend(
            session: session, uploads: uploads, length: length ?? session.length, maxFileBytes: limits.maxFileBytes,
            tooLarge: pipeline.configuration.fileTooLarge, checkpointBytes: wholeRequest ? nil : uploads.policy.checkpointBytes,
            judgeHead: judgeHead,
            renewTurn: { [self] in _ = try await takeTurn(at: claimed.id, uploads) })
    }

    /// Accepts fully received upload `session` as a document: its parts put together, each checked
    /// against the hash it was kept with, validated, published and queued like a one-shot upload.
    /// Completing it again (a retried last request) answers the same document. A refused file ends
    /// the upload (its parts are removed); a damaged part sets the upload back to where that part
    /// started (`offsetMismatch`), so its client sends the rest again. The caller holds the upload
    /// (``claimUpload(_:front:stop:)``).
    package func completeUpload(_ session: UploadSession) async throws -> (document: Document, jobID: Int64?) {
        let uploads = try resumableUploads()
        if session.status == .complete, let documentID = session.documentID { return (try await document(id: documentID), session.jobID) }
        guard session.status == .open, session.isFullyReceived else { throw UploadRefusal.inconsistentLength }
        let parts = try await uploads.sessions.parts(of: session.id)
        var next = 0
        for part in parts {
            guard part.start == next else { throw try await rollBack(session.id, to: next, uploads) }
            next += part.length
        }
        guard next == session.received else { throw try await rollBack(session.id, to: next, uploads) }
        let writer = try receiving()
        for part in parts {
            do {
                try await uploads.staging.copy(part, into: writer)
            } catch let damaged as DamagedUploadPart {
                ServiceMetrics.uploadPartsDamaged()
                throw try await rollBack(session.id, to: damaged.part.start, uploads)
            }
        }
        let accepted: (document: Document, job: JobRecord)
        do {
            // The upload is marked complete in the transaction that indexes its document.
            accepted = try await accept(writer, labels: try labels(owner: session.owner, session.labels), completing: session.id)
        } catch let refusal as PreviewError where refusal.code.disposition == .refused {
            if let ended = try await uploads.sessions.cancel(session.id) { await uploads.staging.remove(ended.parts, of: session.id) }
            throw refusal
        }
        await uploads.staging.remove(parts, of: session.id)
        return (accepted.document, accepted.job.id)
    }

    /// Sets upload `id` back to offset `start` (its parts from there on are damaged, missing or do
    /// not follow) and removes those parts: the refusal that tells its client where to resume.
    func rollBack(_ id: String, to start: Int, _ uploads: ResumableUploads) async throws -> UploadRefusal {
        if let dropped = try await uploads.sessions.rollBack(id, to: start) { await uploads.staging.remove(dropped, of: id) }
        return UploadRefusal.offsetMismatch(expected: try await upload(id: id).received)
    }

    /// Finishes upload `id` if every byte of it arrived and it is still open (a server stopped
    /// while it put the upload together, or a tus client's last append was cut after its bytes
    /// were kept): the client, told the offset is the length, takes it as done. Returns the
    /// upload as it stands after.
    package func finishIfReceived(_ id: String, front: UploadSession.Front) async throws -> UploadSession {
        let session = try await upload(id: id, front: front)
        guard session.status == .open, session.isFullyReceived else { return session }
        let claimed = try await claimUpload(id, front: front) {}
        do {
            let now = try await upload(id: id, front: front)
            if now.status == .open, now.isFullyReceived { _ = try await completeUpload(now) }
            await claimed.release()
        } catch {
            await claimed.release()
            throw error
        }
        return try await upload(id: id, front: front)
    }

    /// Cancels upload `id` and removes its bytes.
    package func cancelUpload(_ id: String) async throws {
        let uploads = try resumableUploads()
        guard let ended = try await uploads.sessions.cancel(id) else {
            _ = try await upload(id: id)  // not open: say why (unknown, expired)
            return
        }
        await uploads.staging.remove(ended.parts, of: id)
    }

    private func labels(owner: String, _ fields: [String: String]) throws -> DocumentLabels {
        try DocumentLabels(
            owner: owner, typeID: fields["type"], title: fields["title"], filename: fields["filename"],
            description: fields["description"], school: fields["school"], rules: rules)
    }
}
