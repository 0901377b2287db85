import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// What resumable uploads may cost and how long they live.
package struct UploadPolicy: Sendable {
    /// How long an upload may take from its creation; `gc` removes it afterwards.
    package var lifetime: TimeInterval = 24 * 3600
    package var caps = UploadCaps()
    /// An append's bytes are made durable and counted at least this often (and at least every
    /// second): a killed server costs the client at most this much, or a second's worth, sent
    /// again; a dropped connection costs nothing of what arrived.
    package var checkpointBytes = 4 << 20
    /// The most one request may append (`Upload-Limit: max-append-size`): under common proxies' body limits.
    package var maxAppendBytes = 64 << 20
    /// How long a host's turn at an upload lasts without news (renewed as its bytes are kept); a
    /// request on another host waits that long at most for it to end.
    package var turnSeconds = 10

    package init() {}
}

/// The resumable uploads of one service: their rows (``UploadSessions``), their staged parts
/// (``UploadStaging``), the policy, and which of this process's requests is appending to which.
package struct ResumableUploads: Sendable {
    package let sessions: UploadSessions
    package let staging: any UploadStaging
    package var policy: UploadPolicy
    /// The request of this process at work on each upload (``ActiveUploads``).
    let active = ActiveUploads()
    /// This process, as the index names the host whose turn it is at an upload.
    static let process = UUID().uuidString.lowercased()

    package init(sessions: UploadSessions, staging: any UploadStaging, policy: UploadPolicy = UploadPolicy()) {
        self.sessions = sessions
        self.staging = staging
        self.policy = policy
    }
}

/// Why an upload resource refused a request; each front door answers it in its protocol's words.
package enum UploadRefusal: Error, Sendable, Equatable {
    /// No such upload (or it was cancelled).
    case notFound
    /// Its time ran out.
    case expired
    /// The request's offset is not the upload's (`expected`).
    case offsetMismatch(expected: Int)
    /// The upload completed already (as `session` says); nothing more can be appended.
    case completed(UploadSession)
    /// A length that contradicts the one declared, or bytes past it.
    case inconsistentLength
    /// The request's bytes do not match the checksum it sent; they were not kept.
    case checksumMismatch
}
