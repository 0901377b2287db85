import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// Downloads and device tokens in PostgreSQL, for fetchers on many hosts: leasing is the contract
/// both backends share (``Leases``), taking rows with `FOR UPDATE SKIP LOCKED`, times the database
/// server's.
package struct PostgresDownloadQueue: DownloadQueue, DeviceRegistry {
    private typealias Status = DownloadRecord.Status
    let connections: PostgresConnections
    package var policy: RetryPolicy

    /// `index` must be built on the same `connections` (it migrates the schema).
    package init(index: PostgresIndex, policy: RetryPolicy = RetryPolicy()) {
        connections = index.connections
        self.policy = policy
    }

    package func submit(_ download: DownloadRecord, maxPending: Int) async throws -> (download: DownloadRecord, created: Bool) {
        try await connections.transaction { session in
            // Serialises a client's submissions, so its pending count and its duplicates are exact.
            try await session.query("SELECT pg_advisory_xact_lock(hashtext(\(download.clientID)))")
            if let existing = try await session.query(
                """
                SELECT * FROM downloads WHERE coalesce(device, '') = \(download.device ?? "") AND client_id = \(download.clientID)
                    AND normalized_url = \(download.normalizedURL)
                """
            ).first.map(DownloadRecord.init(row:)) {
                // A failed one is queued again with fresh attempts: the person sent it again.
                let requeued = existing.status == .failed ? try await run(leases.requeueFailed(key: existing.holder.key), on: session).first : nil
                return (requeued ?? existing, false)
            }
            let pending = try await session.query(
                """
                SELECT COUNT(*) AS n FROM downloads WHERE coalesce(device, '') = \(download.device ?? "") AND client_id = \(download.clientID)
                    AND status IN (\(Status.queued.rawValue), \(Status.downloading.rawValue))
                """)[0]["n"].decode(Int.self)
            guard pending < maxPending else { throw DownloadRecord.tooManyPending(maxPending) }
            let row = try await session.query(
                """
                INSERT INTO downloads (id, client_id, device, owner, url, normalized_url, route, status, attempts, available_at,
                    client_timestamp, created_at, updated_at)
                VALUES (\(download.id), \(download.clientID), \(download.device), \(download.owner), \(download.url), \(download.normalizedURL),
                    \(download.route.rawValue), \(download.status.rawValue), 0, now(), \(download.clientTimestamp), now(), now())
                RETURNING *
                """)[0]
            return (try DownloadRecord(row: row), true)
        }
    }

    package func download(id: String) async throws -> DownloadRecord? {
        try await connections.query("SELECT * FROM downloads WHERE id = \(id)").first.map(DownloadRecord.init(row:))
    }

    package func downloads(clientID: String, device: String?, before: Int64?, limit: Int) async throws -> [DownloadRecord] {
        try await connections.query(
            """
            SELECT * FROM downloads WHERE client_id = \(clientID) AND (\(device)::text IS NULL OR coalesce(device, '') = \(device))
                AND seq < \(before ?? Int64.max) ORDER BY seq DESC LIMIT \(limit)
            """
        ).map(DownloadRecord.init(row:))
    }

    package func leaseDownload(worker: String, leaseSeconds: TimeInterval) async throws -> DownloadRecord? {
        try await connections.transaction { session in try await run(leases.lease(worker: worker, seconds: leaseSeconds), on: session).leased }
    }

    /// The lease contract over the downloads.
    private var leases: Leases<DownloadRecord> { Leases(.downloads, dialect: .postgres, policy: policy) }

    /// Runs `plan` of the lease contract on `session`.
    private func run<T>(_ plan: Leases<DownloadRecord>.Plan<T>, on session: Session) async throws -> T {
        try await session.run(plan, DownloadRecord.init(row:))
    }

    package func renewLease(_ download: DownloadRecord, leaseSeconds: TimeInterval) async throws -> Bool {
        try await connections.withConnection { session in try await run(leases.renew(download.holder, seconds: leaseSeconds), on: session) }
    }

    @discardableResult
    package func finish(_ download: DownloadRecord, documentID: String) async throws -> Bool {
        try await connections.withConnection { session in
            try await run(leases.finish(download.holder, setting: "document_id = \(documentID)"), on: session) != nil
        }
    }

    @discardableResult
    package func fail(_ download: DownloadRecord, error: PreviewError, retryable: Bool) async throws -> DownloadRecord {
        try await connections.withConnection { session in
            try await run(leases.fail(download.holder, error: error, retryable: retryable), on: session) ?? download
        }
    }

    package func release(_ download: DownloadRecord) async throws {
        try await connections.withConnection { session in _ = try await run(leases.release(download.holder), on: session) }
    }

    package func downloads(documentID: String) async throws -> [DownloadRecord] {
        try await connections.query("SELECT * FROM downloads WHERE document_id = \(documentID) ORDER BY seq").map(DownloadRecord.init(row:))
    }

    package func reclaimDownloadLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await connections.withConnection { session in try await run(leases.reclaim(where: isDead), on: session) }
    }

    package func downloadCounts() async throws -> [DownloadRecord.Status: Int] {
        var counts = Dictionary(uniqueKeysWithValues: DownloadRecord.Status.allCases.map { ($0, 0) })
        for row in try await connections.query(PostgresQuery(unsafeSQL: StatusCounts.query("downloads", DownloadRecord.Status.self))) {
            if let status = DownloadRecord.Status(rawValue: try row["status"].decode(String.self)) { counts[status] = try row["n"].decode(Int.self) }
        }
        return counts
    }

    // MARK: Devices

    package func addDevice(_ device: DeviceRecord) async throws {
        let inserted = try await connections.query(
            """
            INSERT INTO devices (name, token_sha256, owner, created_at) VALUES (\(device.name), \(device.tokenSha256), \(device.owner), \
            \(device.createdAt))
            ON CONFLICT (name) DO NOTHING RETURNING name
            """)
        if inserted.isEmpty { throw DeviceRecord.nameTaken(device.name) }
    }

    package func device(tokenSha256: String) async throws -> DeviceRecord? {
        try await connections.query("SELECT * FROM devices WHERE token_sha256 = \(tokenSha256) AND revoked_at IS NULL").first.map(
            DeviceRecord.init(row:))
    }

    package func devices() async throws -> [DeviceRecord] {
        try await connections.query("SELECT * FROM devices ORDER BY created_at, name").map(DeviceRecord.init(row:))
    }

    package func revokeDevice(name: String) async throws -> Bool {
        try await !connections.query("UPDATE devices SET revoked_at = now() WHERE name = \(name) AND revoked_at IS NULL RETURNING name").isEmpty
    }
}

extension DownloadRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            seq: try row["seq"].decode(Int64.self), id: try row["id"].decode(String.self), clientID: try row["client_id"].decode(String.self),
            device: try row["device"].decode(String?.self), owner: try row["owner"].decode(String.self), url: try row["url"].decode(String.self),
            normalizedURL: try row["normalized_url"].decode(String.self), route: try row.decode("route", as: DownloadLink.Route.self),
            status: try row.decode("status", as: Status.self), attempts: try row["attempts"].decode(Int.self),
            availableAt: try row["available_at"].decode(Date.self), leaseOwner: try row["lease_owner"].decode(String?.self),
            leaseExpiresAt: try row["lease_expires_at"].decode(Date?.self), documentID: try row["document_id"].decode(String?.self),
            errorCode: try row.decodeIfPresent("error_code", as: PreviewError.Code.self), errorMessage: try row["error_message"].decode(String?.self),
            clientTimestamp: try row["client_timestamp"].decode(String?.self), createdAt: try row["created_at"].decode(Date.self),
            updatedAt: try row["updated_at"].decode(Date.self))
    }
}

extension DeviceRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            name: try row["name"].decode(String.self), tokenSha256: try row["token_sha256"].decode(String.self),
            owner: try row["owner"].decode(String.self), createdAt: try row["created_at"].decode(Date.self),
            revokedAt: try row["revoked_at"].decode(Date?.self))
    }
}
