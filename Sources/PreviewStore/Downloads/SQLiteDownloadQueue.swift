import Foundation
import GRDB
import PreviewCore

/// Downloads and device tokens in the store's own SQLite index: one write transaction per lease,
/// so fetchers in several processes never take the same download.
package struct SQLiteDownloadQueue: DownloadQueue, DeviceRegistry {
    let index: SQLiteIndex
    package var policy: RetryPolicy

    package init(index: SQLiteIndex, policy: RetryPolicy = RetryPolicy()) {
        self.index = index
        self.policy = policy
    }

    package func submit(_ download: DownloadRecord, maxPending: Int) async throws -> (download: DownloadRecord, created: Bool) {
        try await index.pool.write { db in
            let sender: [any DatabaseValueConvertible] = [download.device ?? "", download.clientID]
            if let existing = try DownloadRecord.fetchOne(
                db, sql: "SELECT * FROM downloads WHERE ifnull(device, '') = ? AND client_id = ? AND normalized_url = ?",
                arguments: StatementArguments(sender + [download.normalizedURL]))
            {
                // A failed one is queued again with fresh attempts: the person sent it again.
                let requeued = existing.status == .failed ? try db.run(leases.requeueFailed(key: existing.holder.key)).first : nil
                return (requeued ?? existing, false)
            }
            let pending =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM downloads WHERE ifnull(device, '') = ? AND client_id = ? AND status IN (?, ?)",
                    arguments: StatementArguments(sender + [DownloadRecord.Status.queued, DownloadRecord.Status.downloading])) ?? 0
            guard pending < maxPending else { throw DownloadRecord.tooManyPending(maxPending) }
            var inserted = download
            try inserted.insert(db)
            return (inserted, true)
        }
    }

    package func download(id: String) async throws -> DownloadRecord? {
        try await index.pool.read { db in try DownloadRecord.filter(DownloadRecord.CodingKeys.id == id).fetchOne(db) }
    }

    package func downloads(clientID: String, device: String?, before: Int64?, limit: Int) async throws -> [DownloadRecord] {
        try await index.pool.read { db in
            try DownloadRecord.fetchAll(
                db,
                sql: """
                    SELECT * FROM downloads WHERE client_id = ? AND (? IS NULL OR ifnull(device, '') = ?) AND seq < ? ORDER BY seq DESC LIMIT ?
                    """, arguments: [clientID, device, device, before ?? Int64.max, limit])
        }
    }

    package func leaseDownload(worker: String, leaseSeconds: TimeInterval) async throws -> DownloadRecord? {
        try await index.pool.write { db in try db.run(leases.lease(worker: worker, seconds: leaseSeconds)).leased }
    }

    /// The lease contract over the downloads.
    private var leases: Leases<DownloadRecord> { Leases(.downloads, dialect: .sqlite, policy: policy) }

    package func renewLease(_ download: DownloadRecord, leaseSeconds: TimeInterval) async throws -> Bool {
        try await index.pool.write { db in try db.run(leases.renew(download.holder, seconds: leaseSeconds)) }
    }

    @discardableResult
    package func finish(_ download: DownloadRecord, documentID: String) async throws -> Bool {
        try await index.pool.write { db in try db.run(leases.finish(download.holder, setting: "document_id = \(documentID)")) != nil }
    }

    @discardableResult
    package func fail(_ download: DownloadRecord, error: PreviewError, retryable: Bool) async throws -> DownloadRecord {
        try await index.pool.write { db in try db.run(leases.fail(download.holder, error: error, retryable: retryable)) ?? download }
    }

    package func release(_ download: DownloadRecord) async throws {
        try await index.pool.write { db in _ = try db.run(leases.release(download.holder)) }
    }

    package func downloads(documentID: String) async throws -> [DownloadRecord] {
        try await index.pool.read { db in
            try DownloadRecord.fetchAll(db, sql: "SELECT * FROM downloads WHERE document_id = ? ORDER BY seq", arguments: [documentID])
        }
    }

    package func reclaimDownloadLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await index.pool.write { [leases] db in try db.run(leases.reclaim(where: isDead)) }
    }

    package func downloadCounts() async throws -> [DownloadRecord.Status: Int] {
        try await index.statusCounts(in: "downloads")
    }

    // MARK: Devices

    package func addDevice(_ device: DeviceRecord) async throws {
        try await index.pool.write { db in
            guard try DeviceRecord.fetchOne(db, key: device.name) == nil else { throw DeviceRecord.nameTaken(device.name) }
            try device.insert(db)
        }
    }

    package func device(tokenSha256: String) async throws -> DeviceRecord? {
        try await index.pool.read { db in
            try DeviceRecord.fetchOne(db, sql: "SELECT * FROM devices WHERE token_sha256 = ? AND revoked_at IS NULL", arguments: [tokenSha256])
        }
    }

    package func devices() async throws -> [DeviceRecord] {
        try await index.pool.read { db in try DeviceRecord.fetchAll(db, sql: "SELECT * FROM devices ORDER BY created_at, name") }
    }

    package func revokeDevice(name: String) async throws -> Bool {
        try await index.pool.write { db in
            try db.execute(sql: "UPDATE devices SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", arguments: [Date(), name])
            return db.changesCount > 0
        }
    }
}
