import Foundation
import GRDB
import PreviewCore

/// The steps of a download's life, the same on both backends (each driver writes the record back).
extension DownloadRecord {
    /// Queued again with a fresh set of attempts, its last failure forgotten.
    mutating func requeue(now: Date) {
        status = .queued
        attempts = 0
        availableAt = now
        errorCode = nil
        errorMessage = nil
        updatedAt = now
    }

    /// Failed for good after its attempts were spent by fetchers that never came back.
    mutating func giveUp() {
        status = .failed
        errorCode = .internal
        errorMessage = RetryPolicy.gaveUp("The download", after: attempts)
    }

    mutating func finish(documentID: String, now: Date) {
        status = .done
        self.documentID = documentID
        leaseOwner = nil
        leaseExpiresAt = nil
        errorCode = nil
        errorMessage = nil
        updatedAt = now
    }

    /// The failure recorded: queued again after `retryIn` seconds, or failed when nil.
    mutating func fail(_ error: PreviewError, retryIn delay: TimeInterval?, now: Date) {
        leaseOwner = nil
        leaseExpiresAt = nil
        errorCode = error.code
        errorMessage = error.message
        updatedAt = now
        if let delay {
            status = .queued
            availableAt = now.addingTimeInterval(delay)
        } else {
            status = .failed
        }
    }

    mutating func release(now: Date) {
        status = .queued
        attempts = max(0, attempts - 1)
        leaseOwner = nil
        leaseExpiresAt = nil
        updatedAt = now
    }

    /// The next download to lease (SQLite; `:now`, `:queued` and `:downloading` bound, see
    /// ``fairestArguments(now:)``): of those due (queued and due, or downloading with their lease run
    /// out), one of the client with the fewest running, then the oldest.
    static let fairest = """
        WITH running AS (SELECT client_id, COUNT(*) AS n FROM downloads WHERE status = :downloading AND lease_expires_at >= :now GROUP BY client_id)
        SELECT d.* FROM downloads d LEFT JOIN running ON running.client_id = d.client_id
        WHERE (d.status = :queued AND d.available_at <= :now) OR (d.status = :downloading AND d.lease_expires_at < :now)
        ORDER BY COALESCE(running.n, 0), d.available_at, d.seq LIMIT 1
        """

    static func fairestArguments(now: Date) -> StatementArguments {
        ["now": now, "queued": Status.queued, "downloading": Status.downloading]
    }

    /// The row is `download`, still leased by its `lease_owner` for the same attempt (its arguments:
    /// ``heldLeaseArguments(_:)``).
    static let heldLease = "seq = ? AND status = ? AND lease_owner = ? AND attempts = ?"

    static func heldLeaseArguments(_ download: DownloadRecord) -> StatementArguments {
        [download.seq, Status.downloading, download.leaseOwner, download.attempts]
    }

    /// The refusal of a client's link while `limit` of its downloads wait.
    public static func tooManyPending(_ limit: Int) -> PreviewError {
        PreviewError(.queueFull, "This device has \(limit) links waiting to download; send more once those are done.")
    }
}

extension DeviceRecord {
    /// The refusal of a second device of one name.
    public static func nameTaken(_ name: String) -> PreviewError {
        PreviewError(.conflict, "A device named \(name) exists already (revoked devices keep their names).")
    }
}
