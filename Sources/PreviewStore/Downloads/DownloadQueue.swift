import Foundation
import PreviewCore

/// The durable queue of links to download (DESIGN §8b), beside the job queue and in the same
/// database: ``SQLiteDownloadQueue`` embedded, `PostgresDownloadQueue` for many hosts. Leasing,
/// retries and back-off follow the job queue's (``RetryPolicy``); `finish`, `fail` and `release`
/// act only while the caller still holds the lease.
package protocol DownloadQueue: Sendable {
    /// Records `download`, unless its client (its device and `client_id`: another device's
    /// downloads are never touched) sent the same normalised link before: then returns that one (a
    /// failed one queued again with fresh attempts: the person sent it again), and `created` is
    /// false. Throws `queue_full` when the client has `maxPending` downloads waiting.
    func submit(_ download: DownloadRecord, maxPending: Int) async throws -> (download: DownloadRecord, created: Bool)
    func download(id: String) async throws -> DownloadRecord?
    /// A client's downloads, newest first, after the one whose `seq` is `before` (keyset pages:
    /// links that arrive meanwhile never move a later page): those `device` sent, or with `device`
    /// nil every sender's.
    func downloads(clientID: String, device: String?, before: Int64?, limit: Int) async throws -> [DownloadRecord]
    /// Takes the next due download (or one whose lease expired), the client with the fewest running first,
    /// counting an attempt; downloads whose attempts are spent are failed instead.
    func leaseDownload(worker: String, leaseSeconds: TimeInterval) async throws -> DownloadRecord?
    /// Extends the lease while the caller holds it; false when it was lost.
    func renewLease(_ download: DownloadRecord, leaseSeconds: TimeInterval) async throws -> Bool
    /// Marks the download done as document `documentID`; false when the lease was lost.
    @discardableResult
    func finish(_ download: DownloadRecord, documentID: String) async throws -> Bool
    /// Records a failure: retried after the policy's delay when `retryable` and attempts remain,
    /// else failed for good. Returns the download as recorded.
    @discardableResult
    func fail(_ download: DownloadRecord, error: PreviewError, retryable: Bool) async throws -> DownloadRecord
    /// Gives a leased download back untouched (shutdown), its attempt uncounted.
    func release(_ download: DownloadRecord) async throws
    /// The downloads that became document `documentID` (its sources), oldest first.
    func downloads(documentID: String) async throws -> [DownloadRecord]
    /// Queues again the downloads leased by owners that `isDead` says are gone (a crashed process
    /// on this host), without waiting for their leases to run out; their attempt stays counted.
    func reclaimDownloadLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int
    /// How many downloads are in each status.
    func downloadCounts() async throws -> [DownloadRecord.Status: Int]
}

/// The device tokens (`docpreview tokens`), kept in the index's database.
package protocol DeviceRegistry: Sendable {
    /// Adds `device`; `conflict` when a device of that name exists (revoked ones included: names are not reused).
    func addDevice(_ device: DeviceRecord) async throws
    /// The live (not revoked) device whose token has this SHA-256.
    func device(tokenSha256: String) async throws -> DeviceRecord?
    /// Every device, revoked ones included, oldest first.
    func devices() async throws -> [DeviceRecord]
    /// Revokes the device at once; false when there is no live device of that name.
    func revokeDevice(name: String) async throws -> Bool
}

/// Both: what a backend keeps for link downloads.
package typealias LinkDownloads = DownloadQueue & DeviceRegistry
