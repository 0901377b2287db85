import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// Downloads and device tokens in PostgreSQL, for fetchers on many hosts: a lease is one statement
/// with `FOR UPDATE SKIP LOCKED`; the policy and the order are ``SQLiteDownloadQueue``'s, times the
/// database server's.
public struct PostgresDownloadQueue: DownloadQueue, DeviceRegistry {
    private typealias Status = DownloadRecord.Status
    let connections: PostgresConnections
    public var policy: RetryPolicy

    /// `index` must be built on the same `connections` (it migrates the schema).
    public init(index: PostgresIndex, policy: RetryPolicy = RetryPolicy()) {
        connections = index.connections
        self.policy = policy
    }

    public func submit(_ download: DownloadRecord, maxPending: Int) throws -> (download: DownloadRecord, created: Bool) {
        try connections.transaction { session in
            // Serialises a client's submissions, so its pending count and its duplicates are exact.
            try session.query("SELECT pg_advisory_xact_lock(hashtext(\(download.clientID)))")
            if let existing = try session.query("""
                UPDATE downloads SET status = CASE WHEN status = \(Status.failed.rawValue) THEN \(Status.queued.rawValue) ELSE status END,
                    attempts = CASE WHEN status = \(Status.failed.rawValue) THEN 0 ELSE attempts END,
                    available_at = CASE WHEN status = \(Status.failed.rawValue) THEN now() ELSE available_at END,
                    error_code = CASE WHEN status = \(Status.failed.rawValue) THEN NULL ELSE error_code END,
                    error_message = CASE WHEN status = \(Status.failed.rawValue) THEN NULL ELSE error_message END
                WHERE coalesce(device, '') = \(download.device ?? "") AND client_id = \(download.clientID)
                    AND normalized_url = \(download.normalizedURL) RETURNING *
                """).first {
                return (try DownloadRecord(row: existing), false)
            }
            let pending = try session.query("""
                SELECT COUNT(*) AS n FROM downloads WHERE coalesce(device, '') = \(download.device ?? "") AND client_id = \(download.clientID)
                    AND status IN (\(Status.queued.rawValue), \(Status.downloading.rawValue))
                """)[0]["n"].decode(Int.self)
            guard pending < maxPending else { throw DownloadRecord.tooManyPending(maxPending) }
            let row = try session.query("""
                INSERT INTO downloads (id, client_id, device, owner, url, normalized_url, route, status, attempts, available_at,
                    client_timestamp, created_at, updated_at)
                VALUES (\(download.id), \(download.clientID), \(download.device), \(download.owner), \(download.url), \(download.normalizedURL),
                    \(download.route.rawValue), \(download.status.rawValue), 0, now(), \(download.clientTimestamp), now(), now())
                RETURNING *
                """)[0]
            return (try DownloadRecord(row: row), true)
        }
    }

    public func download(id: String) throws -> DownloadRecord? {
        try connections.query("SELECT * FROM downloads WHERE id = \(id)").first.map(DownloadRecord.init(row:))
    }

    public func downloads(clientID: String, device: String?, before: Int64?, limit: Int) throws -> [DownloadRecord] {
        try connections.query("""
            SELECT * FROM downloads WHERE client_id = \(clientID) AND (\(device)::text IS NULL OR coalesce(device, '') = \(device))
                AND seq < \(before ?? Int64.max) ORDER BY seq DESC LIMIT \(limit)
            """).map(DownloadRecord.init(row:))
    }

    public func leaseDownload(worker: String, leaseSeconds: TimeInterval) throws -> DownloadRecord? {
        let gaveUp = RetryPolicy.gaveUp("The download")
        return try connections.withConnection { session in
            try session.query("""
                UPDATE downloads SET status = \(Status.failed.rawValue), lease_owner = NULL, lease_expires_at = NULL, error_code = \(PreviewError.Code.internal.rawValue),
                    error_message = \(gaveUp.before) || attempts || \(gaveUp.after), updated_at = now()
                WHERE seq IN (SELECT seq FROM downloads WHERE \(unescaped: Self.due("downloads")) AND attempts >= \(policy.maxAttempts)
                              FOR UPDATE SKIP LOCKED)
                """)
            return try session.query("""
                UPDATE downloads SET status = \(Status.downloading.rawValue), attempts = attempts + 1, lease_owner = \(worker),
                    lease_expires_at = now() + make_interval(secs => \(leaseSeconds)), updated_at = now()
                WHERE seq = (SELECT d.seq FROM downloads d
                             LEFT JOIN (SELECT client_id, COUNT(*) AS n FROM downloads WHERE status = \(Status.downloading.rawValue) AND lease_expires_at >= now()
                                        GROUP BY client_id) running ON running.client_id = d.client_id
                             WHERE \(unescaped: Self.due("d")) AND d.attempts < \(policy.maxAttempts)
                             ORDER BY COALESCE(running.n, 0), d.available_at, d.seq LIMIT 1 FOR UPDATE OF d SKIP LOCKED)
                RETURNING *
                """).first.map(DownloadRecord.init(row:))
        }
    }

    /// A status as an SQL literal, from its Swift name, for the one fragment that is not a query of its own.
    private static func literal(_ status: Status) -> String { "'\(status.rawValue)'" }

    /// A download of `table` that can be leased: queued and due, or downloading with its lease run out.
    private static func due(_ table: String) -> String {
        "((\(table).status = \(literal(.queued)) AND \(table).available_at <= now())"
            + " OR (\(table).status = \(literal(.downloading)) AND \(table).lease_expires_at < now()))"
    }

    public func renewLease(_ download: DownloadRecord, leaseSeconds: TimeInterval) throws -> Bool {
        try !connections.query("""
            UPDATE downloads SET lease_expires_at = now() + make_interval(secs => \(leaseSeconds))
            WHERE seq = \(download.seq) AND status = \(Status.downloading.rawValue) AND lease_owner = \(download.leaseOwner) AND attempts = \(download.attempts) RETURNING seq
            """).isEmpty
    }

    @discardableResult
    public func finish(_ download: DownloadRecord, documentID: String) throws -> Bool {
        try !connections.query("""
            UPDATE downloads SET status = \(Status.done.rawValue), document_id = \(documentID), lease_owner = NULL, lease_expires_at = NULL,
                error_code = NULL, error_message = NULL, updated_at = now()
            WHERE seq = \(download.seq) AND status = \(Status.downloading.rawValue) AND lease_owner = \(download.leaseOwner) AND attempts = \(download.attempts) RETURNING seq
            """).isEmpty
    }

    @discardableResult
    public func fail(_ download: DownloadRecord, error: PreviewError, retryable: Bool) throws -> DownloadRecord {
        let delay = retryable ? policy.delay(afterAttempts: download.attempts) : nil
        return try connections.query("""
            UPDATE downloads SET status = \((delay == nil ? Status.failed : .queued).rawValue), lease_owner = NULL, lease_expires_at = NULL,
                error_code = \(error.code.rawValue), error_message = \(error.message),
                available_at = now() + make_interval(secs => \(delay ?? 0)), updated_at = now()
            WHERE seq = \(download.seq) AND status = \(Status.downloading.rawValue) AND lease_owner = \(download.leaseOwner) AND attempts = \(download.attempts) RETURNING *
            """).first.map(DownloadRecord.init(row:)) ?? download
    }

    public func release(_ download: DownloadRecord) throws {
        try connections.query("""
            UPDATE downloads SET status = \(Status.queued.rawValue), attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
                updated_at = now()
            WHERE seq = \(download.seq) AND status = \(Status.downloading.rawValue) AND lease_owner = \(download.leaseOwner) AND attempts = \(download.attempts)
            """)
    }

    public func downloads(documentID: String) throws -> [DownloadRecord] {
        try connections.query("SELECT * FROM downloads WHERE document_id = \(documentID) ORDER BY seq").map(DownloadRecord.init(row:))
    }

    public func reclaimDownloadLeases(where isDead: (String) -> Bool) throws -> Int {
        let owners = try connections.query("SELECT DISTINCT lease_owner FROM downloads WHERE status = \(Status.downloading.rawValue)")
            .compactMap { try $0["lease_owner"].decode(String?.self) }.filter(isDead)
        var reclaimed = 0
        for owner in owners {
            reclaimed += try connections.query("""
                UPDATE downloads SET status = \(Status.queued.rawValue), lease_owner = NULL, lease_expires_at = NULL
                WHERE status = \(Status.downloading.rawValue) AND lease_owner = \(owner) RETURNING seq
                """).count
        }
        return reclaimed
    }

    public func downloadCounts() throws -> [DownloadRecord.Status: Int] {
        var counts = Dictionary(uniqueKeysWithValues: DownloadRecord.Status.allCases.map { ($0, 0) })
        for row in try connections.query(PostgresQuery(unsafeSQL: StatusCounts.query("downloads", DownloadRecord.Status.self))) {
            if let status = DownloadRecord.Status(rawValue: try row["status"].decode(String.self)) { counts[status] = try row["n"].decode(Int.self) }
        }
        return counts
    }

    // MARK: Devices

    public func addDevice(_ device: DeviceRecord) throws {
        let inserted = try connections.query("""
            INSERT INTO devices (name, token_sha256, owner, created_at) VALUES (\(device.name), \(device.tokenSha256), \(device.owner), \(device.createdAt))
            ON CONFLICT (name) DO NOTHING RETURNING name
            """)
        if inserted.isEmpty { throw DeviceRecord.nameTaken(device.name) }
    }

    public func device(tokenSha256: String) throws -> DeviceRecord? {
        try connections.query("SELECT * FROM devices WHERE token_sha256 = \(tokenSha256) AND revoked_at IS NULL").first.map(DeviceRecord.init(row:))
    }

    public func devices() throws -> [DeviceRecord] {
        try connections.query("SELECT * FROM devices ORDER BY created_at, name").map(DeviceRecord.init(row:))
    }

    public func revokeDevice(name: String) throws -> Bool {
        try !connections.query("UPDATE devices SET revoked_at = now() WHERE name = \(name) AND revoked_at IS NULL RETURNING name").isEmpty
    }
}

extension DownloadRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(seq: try row["seq"].decode(Int64.self), id: try row["id"].decode(String.self), clientID: try row["client_id"].decode(String.self),
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
        self.init(name: try row["name"].decode(String.self), tokenSha256: try row["token_sha256"].decode(String.self),
                  owner: try row["owner"].decode(String.self), createdAt: try row["created_at"].decode(Date.self),
                  revokedAt: try row["revoked_at"].decode(Date?.self))
    }
}
