import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// This process's claim on one upload (``DocumentService/claimUpload(_:front:stop:)``).
package struct ClaimedUpload: Sendable {
    package let id: String
    let token: UUID
    let uploads: ResumableUploads

    /// Lets the next request for the upload in, of this process and of any host.
    package func release() async {
        try? await uploads.sessions.endAppending(id, appender: ResumableUploads.process)
        await uploads.active.release(id, token: token)
    }
}

/// One request's bytes appended to an upload: written into a part as they arrive, and kept (made
/// durable, then counted by the index) every ``UploadPolicy/checkpointBytes`` or second, whichever
/// comes first, and at the end, or when the request breaks off. Used by one request at a time.
package final class UploadAppend: @unchecked Sendable {  // one request's task uses it
    package private(set) var session: UploadSession
    private let uploads: ResumableUploads
    private let length: Int?
    private let maxFileBytes: Int
    /// The refusal of bytes past ``maxFileBytes``.
    private let tooLarge: PreviewError
    private let checkpointBytes: Int?
    private var part: UploadPartFile?
    /// The refusal a file's first bytes (``ByteProbe/windowSize`` of them) and size (nil: not
    /// known yet) already decide, if any.
    typealias HeadJudge = @Sendable (_ head: [UInt8], _ size: Int?) -> PreviewError?
    /// Judges the first bytes once they have arrived, when this request brings them.
    private var judgeHead: HeadJudge?
    private var head: [UInt8] = []
    /// Renews this host's turn at the upload (as its bytes are kept).
    private let renewTurn: @Sendable () async throws -> Void

    init(
        session: UploadSession, uploads: ResumableUploads, length: Int?, maxFileBytes: Int, tooLarge: PreviewError, checkpointBytes: Int?,
        judgeHead: HeadJudge?, renewTurn: @escaping @Sendable () async throws -> Void
    ) {
        self.session = session
        self.uploads = uploads
        self.length = length
        self.maxFileBytes = maxFileBytes
        self.tooLarge = tooLarge
        self.checkpointBytes = checkpointBytes
        self.judgeHead = judgeHead
        self.renewTurn = renewTurn
    }

    /// Appends `bytes`: refused past the upload's length (`inconsistentLength`) or the file size
    /// limit, and, as soon as the first bytes tell, a file they refuse (which ends the upload).
    package func write(_ bytes: some DataProtocol) async throws {
        let total = session.received + (part?.length ?? 0) + bytes.count
        if let length, total > length { throw UploadRefusal.inconsistentLength }
        if total > maxFileBytes { throw tooLarge }
        try await judgeFirstBytes(adding: bytes)
        let file = try part ?? uploads.staging.newPart(of: session.id, at: session.received)
        part = file
        try file.write(bytes)
        guard let checkpointBytes else { return }
        // Every so many bytes on a fast link, every second on a slow one.
        if file.length >= checkpointBytes || (ContinuousClock.now - lastKept >= Self.checkpointInterval && file.length >= 64 * 1024) {
            try await keep()
        }
    }

    /// The longest a request's bytes wait to be made durable, when they arrive slowly.
    static let checkpointInterval: Duration = .seconds(1)
    private var lastKept = ContinuousClock.now

    /// Keeps every byte received (the request ended) and records the length, if declared; with
    /// `ending` (the client said this request ends the upload) the length is what arrived, and
    /// must be what was declared.
    package func finish(ending: Bool = false) async throws -> UploadSession {
        try await keep()
        if let declared = ending ? (length ?? session.received) : length, session.length == nil {
            guard
                let recorded = try await uploads.sessions.append(
                    UploadPart(start: session.received, length: 0, name: ""), to: session.id,
                    length: declared)
            else { throw UploadRefusal.inconsistentLength }
            session = recorded
        }
        if ending, !session.isFullyReceived { throw UploadRefusal.inconsistentLength }
        return session
    }

    /// The request broke off: keeps what arrived, so the client resumes after it.
    package func interrupted() async {
        do {
            try await keep()
        } catch {
            discard()
        }
    }

    /// Drops the bytes not kept yet (a checksum did not match).
    package func discard() {
        part?.discard()
        part = nil
    }

    /// Gathers the first bytes until there are enough to judge, then judges them once; a refused
    /// file's upload is cancelled, none of its bytes kept.
    private func judgeFirstBytes(adding bytes: some DataProtocol) async throws {
        guard let judge = judgeHead else { return }
        head.append(contentsOf: bytes.prefix(ByteProbe.windowSize - head.count))
        guard head.count == ByteProbe.windowSize else { return }
        judgeHead = nil
        defer { head = [] }
        guard let refusal = judge(head, length) else { return }
        discard()
        if let ended = try await uploads.sessions.cancel(session.id) { await uploads.staging.remove(ended.parts, of: session.id) }
        throw refusal
    }

    /// Makes the part durable and has the index count it.
    private func keep() async throws {
        guard let file = part else { return }
        part = nil
        guard file.length > 0 else { file.discard(); return }
        let kept = try await uploads.staging.keep(file)
        lastKept = ContinuousClock.now
        guard let next = try await uploads.sessions.append(kept, to: session.id, length: length) else {
            // Another host appended or ended it meanwhile: these bytes do not count.
            await uploads.staging.remove([kept], of: session.id)
            let now = try await uploads.sessions.session(id: session.id)
            if let now, now.status == .open { throw UploadRefusal.offsetMismatch(expected: now.received) }
            throw UploadRefusal.notFound
        }
        session = next
        try await renewTurn()
    }
}
