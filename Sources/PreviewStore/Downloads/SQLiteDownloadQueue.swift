import Foundation
import GRDB
import PreviewCore

/// Downloads and device tokens in the store's own SQLite index: one write transaction per lease,
/// so fetchers in several processes never take the same download.
public struct SQLiteDownloadQueue: DownloadQueue, DeviceRegistry {
    let index: SQLiteIndex
    public var policy: RetryPolicy

    public init(index: SQLiteIndex, policy: RetryPolicy = RetryPolicy()) {
        self.index = index
        self.policy = policy
    }

    public func submit(_ download: DownloadRecord, maxPending: Int) throws -> (download: DownloadRecord, created: Bool) {
        try index.pool.write { db in
            let sender: [any DatabaseValueConvertible] = [download.device ?? "", download.clientID]
            if var existing = try DownloadRecord.fetchOne(db, sql: "SELECT * FROM downloads WHERE ifnull(device, '') = ? AND client_id = ? AND normalized_url = ?",
                                                          arguments: StatementArguments(sender + [download.normalizedURL])) {
                if existing.status == .failed {
                    existing.requeue(now: Date())
                    try existing.update(db)
                }
                return (existing, false)
            }
            let pending = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM downloads WHERE ifnull(device, '') = ? AND client_id = ? AND status IN (?, ?)",
                                           arguments: StatementArguments(sender + [DownloadRecord.Status.queued, DownloadRecord.Status.downloading])) ?? 0
            guard pending < maxPending else { throw DownloadRecord.tooManyPending(maxPending) }
            var inserted = download
            try inserted.insert(db)
            return (inserted, true)
        }
    }

    public func download(id: String) throws -> DownloadRecord? {
        try index.pool.read { db in try DownloadRecord.filter(DownloadRecord.CodingKeys.id == id).fetchOne(db) }
    }

    public func downloads(clientID: String, device: String?, before: Int64?, limit: Int) throws -> [DownloadRecord] {
        try index.pool.read { db in
            try DownloadRecord.fetchAll(db, sql: """
                SELECT * FROM downloads WHERE client_id = ? AND (? IS NULL OR ifnull(device, '') = ?) AND seq < ? ORDER BY seq DESC LIMIT ?
                """, arguments: [clientID, device, device, before ?? Int64.max, limit])
        }
    }

    public func leaseDownload(worker: String, leaseSeconds: TimeInterval) throws -> DownloadRecord? {
        try index.pool.write { db in
            let now = Date()
            while var download = try DownloadRecord.fetchOne(db, sql: DownloadRecord.fairest, arguments: DownloadRecord.fairestArguments(now: now)) {
                download.updatedAt = now
                download.leaseOwner = nil
                download.leaseExpiresAt = nil
                if download.attempts >= policy.maxAttempts {
                    download.giveUp()
                    try download.update(db)
                    continue
                }
                download.status = .downloading
                download.attempts += 1
                download.leaseOwner = worker
                download.leaseExpiresAt = now.addingTimeInterval(leaseSeconds)
                try download.update(db)
                return download
            }
            return nil
        }
    }

    public func renewLease(_ download: DownloadRecord, leaseSeconds: TimeInterval) throws -> Bool {
        try index.pool.write { db in
            try db.execute(sql: "UPDATE downloads SET lease_expires_at = ? WHERE \(DownloadRecord.heldLease)",
                           arguments: StatementArguments([Date().addingTimeInterval(leaseSeconds)]) + DownloadRecord.heldLeaseArguments(download))
            return db.changesCount > 0
        }
    }

    @discardableResult
    public func finish(_ download: DownloadRecord, documentID: String) throws -> Bool {
        try index.pool.write { db in
            guard try holdsLease(download, in: db) else { return false }
            var done = download
            done.finish(documentID: documentID, now: Date())
            try done.update(db)
            return true
        }
    }

    @discardableResult
    public func fail(_ download: DownloadRecord, error: PreviewError, retryable: Bool) throws -> DownloadRecord {
        try index.pool.write { db in
            guard try holdsLease(download, in: db) else { return download }
            var failed = download
            failed.fail(error, retryIn: retryable ? policy.delay(afterAttempts: download.attempts) : nil, now: Date())
            try failed.update(db)
            return failed
        }
    }

    public func release(_ download: DownloadRecord) throws {
        try index.pool.write { db in
            guard try holdsLease(download, in: db) else { return }
            var released = download
            released.release(now: Date())
            try released.update(db)
        }
    }

    public func downloads(documentID: String) throws -> [DownloadRecord] {
        try index.pool.read { db in
            try DownloadRecord.fetchAll(db, sql: "SELECT * FROM downloads WHERE document_id = ? ORDER BY seq", arguments: [documentID])
        }
    }

    public func reclaimDownloadLeases(where isDead: (String) -> Bool) throws -> Int {
        try index.pool.write { db in
            let owners = try String.fetchAll(db, sql: "SELECT DISTINCT lease_owner FROM downloads WHERE status = ?",
                                             arguments: [DownloadRecord.Status.downloading]).filter(isDead)
            var reclaimed = 0
            for owner in owners {
                try db.execute(sql: "UPDATE downloads SET status = ?, lease_owner = NULL, lease_expires_at = NULL WHERE status = ? AND lease_owner = ?",
                               arguments: [DownloadRecord.Status.queued, DownloadRecord.Status.downloading, owner])
                reclaimed += db.changesCount
            }
            return reclaimed
        }
    }

    public func downloadCounts() throws -> [DownloadRecord.Status: Int] {
        try index.statusCounts(in: "downloads")
    }

    private func holdsLease(_ download: DownloadRecord, in db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM downloads WHERE \(DownloadRecord.heldLease)",
                         arguments: DownloadRecord.heldLeaseArguments(download)) == 1
    }

    // MARK: Devices

    public func addDevice(_ device: DeviceRecord) throws {
        try index.pool.write { db in
            guard try DeviceRecord.fetchOne(db, key: device.name) == nil else { throw DeviceRecord.nameTaken(device.name) }
            try device.insert(db)
        }
    }

    public func device(tokenSha256: String) throws -> DeviceRecord? {
        try index.pool.read { db in
            try DeviceRecord.fetchOne(db, sql: "SELECT * FROM devices WHERE token_sha256 = ? AND revoked_at IS NULL", arguments: [tokenSha256])
        }
    }

    public func devices() throws -> [DeviceRecord] {
        try index.pool.read { db in try DeviceRecord.fetchAll(db, sql: "SELECT * FROM devices ORDER BY created_at, name") }
    }

    public func revokeDevice(name: String) throws -> Bool {
        try index.pool.write { db in
            try db.execute(sql: "UPDATE devices SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", arguments: [Date(), name])
            return db.changesCount > 0
        }
    }
}
