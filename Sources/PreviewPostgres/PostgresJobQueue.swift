import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// The job queue in PostgreSQL, for workers on many hosts (DESIGN §11). A lease is one
/// statement: it takes a ready job of the owner with the fewest running, the oldest of those, with
/// `FOR UPDATE SKIP LOCKED`, so concurrent workers never wait on each other's rows and never take
/// the same job. Retry, back-off and dead-letter
/// semantics are those of ``SQLiteJobQueue``; times are the database server's clock, so hosts
/// with skewed clocks agree on when a lease runs out.
public struct PostgresJobQueue: JobQueue {
    let connections: PostgresConnections
    public var policy: RetryPolicy

    /// `index` must be built on the same `connections` (it migrates the schema).
    public init(index: PostgresIndex, policy: RetryPolicy = RetryPolicy()) {
        connections = index.connections
        self.policy = policy
    }

    public func enqueue(_ document: DocumentRecord, leasingTo lease: JobLease?) throws -> (document: DocumentRecord, job: JobRecord, leased: Bool) {
        try connections.transaction { session in
            let (stored, inserted) = try PostgresIndex.insertVersion(document, in: session)
            if !inserted, let existing = try latestJob(documentID: stored.id, kind: .preview, in: session) { return (stored, existing, false) }
            let first = JobRecord.Status.first(for: stored)
            let leasing = first == .queued ? lease : nil
            let status = leasing == nil ? first : .processing
            // The lease's length is ours (the worker's settings), never a client's: written as a literal.
            let expires = leasing.map { "now() + make_interval(secs => \($0.seconds))" } ?? "NULL"
            let job = try JobRecord(row: try session.query("""
                INSERT INTO jobs (document_id, status, attempts, lease_owner, lease_expires_at, available_at, created_at, updated_at)
                VALUES (\(stored.id), \(status.rawValue), \(leasing == nil ? 0 : 1),
                        \(leasing?.worker), \(unescaped: expires), now(), now(), now()) RETURNING *
                """)[0])
            var document = stored
            document.jobStatus = job.status
            return (document, job, leasing != nil)
        }
    }

    public func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) throws -> (job: JobRecord, document: DocumentRecord)? {
        // A transaction, so that a lease PostgreSQL ends for a conflict is run again.
        let gaveUp = RetryPolicy.gaveUp("Processing")
        return try connections.transaction { session in
            // Jobs whose worker died with them every time (the lease ran out) are dead-lettered in
            // the same statement, with their documents marked failed.
            let leased = try session.query("""
                WITH spent AS (
                    UPDATE jobs SET status = \(unescaped: Self.literal(.failed)), lease_owner = NULL, lease_expires_at = NULL, error_code = \(PreviewError.Code.internal.rawValue),
                        error_message = \(gaveUp.before) || attempts || \(gaveUp.after), updated_at = now()
                    WHERE id IN (SELECT id FROM jobs WHERE \(unescaped: Self.ready("jobs")) AND attempts >= \(policy.maxAttempts)
                                 FOR UPDATE SKIP LOCKED)
                    RETURNING document_id, kind, error_code, error_message),
                marked AS (
                    UPDATE documents d SET preview_status = \(PreviewStatus.failed.rawValue), error_code = spent.error_code,
                        error_message = spent.error_message FROM spent WHERE d.id = spent.document_id
                        AND spent.kind = \(unescaped: JobRecord.Kind.literals([.preview])))
                UPDATE jobs SET status = \(unescaped: Self.literal(.processing)), attempts = attempts + 1, lease_owner = \(worker), progress = NULL,
                    lease_expires_at = now() + make_interval(secs => \(leaseSeconds)), updated_at = now()
                WHERE id = (SELECT j.id FROM jobs j JOIN documents d ON d.id = j.document_id
                            LEFT JOIN (SELECT o.owner, COUNT(*) AS n FROM jobs r JOIN documents o ON o.id = r.document_id
                                       WHERE r.status = \(unescaped: Self.literal(.processing)) AND r.lease_expires_at >= now() GROUP BY o.owner) running
                                ON running.owner = d.owner
                            WHERE \(unescaped: Self.ready("j")) AND j.attempts < \(policy.maxAttempts)
                                AND j.kind IN (\(unescaped: JobRecord.Kind.literals(kinds)))
                            ORDER BY j.kind <> \(unescaped: JobRecord.Kind.literals([.preview])), COALESCE(running.n, 0), j.available_at, j.id
                            LIMIT 1 FOR UPDATE OF j SKIP LOCKED)
                RETURNING *
                """)
            guard let row = leased.first else { return nil }
            let job = try JobRecord(row: row)
            guard let document = try session.query("SELECT * FROM documents WHERE id = \(job.documentID)").first else { return nil }
            return (job, try DocumentRecord(row: document))
        }
    }

    /// A job of `table` (a name or alias of `jobs`) that can be leased: queued and due, or processing
    /// with its lease run out.
    private static func ready(_ table: String) -> String {
        """
        ((\(table).status = \(literal(.queued)) AND \(table).available_at <= now())
         OR (\(table).status = \(literal(.processing)) AND \(table).lease_expires_at < now()))
        """
    }

    /// A status as an SQL literal, from its Swift name: statuses are never spelled in the SQL here (a
    /// literal, not a parameter, so the planner can use the partial index on unfinished jobs).
    static func literal(_ status: JobRecord.Status) -> String { "'\(status.rawValue)'" }

    @discardableResult
    public func complete(_ job: JobRecord, recording outcome: JobOutcome?) throws -> Bool {
        try session(recording: outcome) { session in
            try record(outcome, of: job, in: session) {
                !(try session.query("""
                    UPDATE jobs SET status = \(unescaped: Self.literal(.done)), lease_owner = NULL, lease_expires_at = NULL, error_code = NULL,
                    error_message = NULL, updated_at = now() WHERE id = \(job.id) AND status = \(unescaped: Self.literal(.processing)) AND lease_owner = \(job.leaseOwner)
                    AND attempts = \(job.attempts) RETURNING id
                    """)).isEmpty
            }
        }
    }

    @discardableResult
    public func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) throws -> JobRecord {
        let delay = retryable ? policy.delay(afterAttempts: job.attempts) : nil
        let status = delay == nil ? JobRecord.Status.failed : .queued
        return try session(recording: outcome) { session in
            var recorded = job
            _ = try record(outcome, of: job, in: session) {
                let updated = try session.query("""
                    UPDATE jobs SET status = \(unescaped: Self.literal(status)), available_at = now() + make_interval(secs => \(delay ?? 0)),
                    lease_owner = NULL, lease_expires_at = NULL, error_code = \(error.code.rawValue), error_message = \(error.message),
                    updated_at = now() WHERE id = \(job.id) AND status = \(unescaped: Self.literal(.processing)) AND lease_owner = \(job.leaseOwner)
                    AND attempts = \(job.attempts) RETURNING *
                    """)
                guard let row = updated.first else { return false }
                recorded = try JobRecord(row: row)
                return true
            }
            return recorded
        }
    }

    /// A transaction when there is an outcome to write with the job's own update; else that one
    /// statement alone, without the round trips of BEGIN and COMMIT.
    private func session<T>(recording outcome: JobOutcome?, _ body: (Session) throws -> T) throws -> T {
        outcome == nil ? try connections.withConnection(body) : try connections.transaction(body)
    }

    /// Runs `update` (the job's own, which matches only while its lease holds), then writes
    /// `outcome`'s derivatives and, when the lease held, the outcome on the document. Returns whether it held.
    private func record(_ outcome: JobOutcome?, of job: JobRecord, in session: Session, update: () throws -> Bool) throws -> Bool {
        let held = try update()
        if let outcome { try PostgresWrites(session).record(outcome, documentID: job.documentID, onDocument: held) }
        return held
    }

    public func reportProgress(_ job: JobRecord, fraction: Double) throws {
        try connections.query("""
            UPDATE jobs SET progress = \(fraction) WHERE id = \(job.id) AND status = \(unescaped: Self.literal(.processing))
            AND lease_owner = \(job.leaseOwner) AND attempts = \(job.attempts)
            """)
    }

    public func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) throws -> Bool {
        !(try connections.query("""
            UPDATE jobs SET lease_expires_at = now() + make_interval(secs => \(leaseSeconds)) WHERE id = \(job.id)
            AND status = \(unescaped: Self.literal(.processing)) AND lease_owner = \(job.leaseOwner) AND attempts = \(job.attempts) RETURNING id
            """)).isEmpty
    }

    public func release(_ job: JobRecord) throws {
        try connections.query("""
            UPDATE jobs SET status = \(unescaped: Self.literal(.queued)), attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires_at = NULL,
            updated_at = now() WHERE id = \(job.id) AND status = \(unescaped: Self.literal(.processing)) AND lease_owner = \(job.leaseOwner)
            AND attempts = \(job.attempts)
            """)
    }

    public func job(id: Int64) throws -> JobRecord? {
        try connections.query("SELECT * FROM jobs WHERE id = \(id)").first.map(JobRecord.init(row:))
    }

    public func queueUnlessWaiting(documentID: String, kind: JobRecord.Kind) throws -> Bool {
        try connections.transaction { session in
            // The document's row lock orders two callers: the second sees the first one's job.
            try session.query("SELECT id FROM documents WHERE id = \(documentID) FOR UPDATE")
            if let latest = try latestJob(documentID: documentID, kind: kind, in: session), [.queued, .processing].contains(latest.status) {
                return false
            }
            try PostgresWrites(session).enqueueJob(documentID: documentID, kind: kind)
            return true
        }
    }

    public func latestJob(documentID: String, kind: JobRecord.Kind) throws -> JobRecord? {
        try connections.withConnection { session in try latestJob(documentID: documentID, kind: kind, in: session) }
    }

    public func jobs(status: JobRecord.Status?, limit: Int) throws -> [JobRecord] {
        try connections.query("""
            SELECT * FROM jobs WHERE \(status?.rawValue)::text IS NULL OR status = \(status?.rawValue) ORDER BY id DESC LIMIT \(limit)
            """).map(JobRecord.init(row:))
    }

    public func retry(id: Int64) throws -> Bool {
        !(try connections.query("""
            UPDATE jobs SET status = \(unescaped: Self.literal(.queued)), attempts = 0, available_at = now(), error_code = NULL, error_message = NULL,
            updated_at = now() WHERE id = \(id) AND status = \(unescaped: Self.literal(.failed)) RETURNING id
            """)).isEmpty
    }

    public func retryFailed() throws -> Int {
        try connections.query("""
            UPDATE jobs SET status = \(unescaped: Self.literal(.queued)), attempts = 0, available_at = now(), error_code = NULL, error_message = NULL,
            updated_at = now() WHERE status = \(unescaped: Self.literal(.failed)) RETURNING id
            """).count
    }

    public func counts() throws -> [JobRecord.Status: Int] {
        try connections.withConnection { session in
            var counts = Dictionary(uniqueKeysWithValues: JobRecord.Status.allCases.map { ($0, 0) })
            for row in try session.query(PostgresQuery(unsafeSQL: StatusCounts.query("jobs", JobRecord.Status.self))) {
                counts[try row.decode("status", as: JobRecord.Status.self)] = try row["n"].decode(Int.self)
            }
            return counts
        }
    }

    public func reclaimLeases(where isDead: (String) -> Bool) throws -> Int {
        try connections.withConnection { session in
            let owners = try session.query("""
                SELECT DISTINCT lease_owner FROM jobs WHERE status = \(unescaped: Self.literal(.processing)) AND lease_owner IS NOT NULL
                """).map { try $0["lease_owner"].decode(String.self) }
            var reclaimed = 0
            for owner in owners where isDead(owner) {
                reclaimed += try session.query("""
                    UPDATE jobs SET status = \(unescaped: Self.literal(.queued)), lease_owner = NULL, lease_expires_at = NULL, available_at = now(), updated_at = now()
                    WHERE status = \(unescaped: Self.literal(.processing)) AND lease_owner = \(owner) RETURNING id
                    """).count
            }
            return reclaimed
        }
    }

    private func latestJob(documentID: String, kind: JobRecord.Kind, in session: Session) throws -> JobRecord? {
        try session.query("SELECT * FROM jobs WHERE document_id = \(documentID) AND kind = \(kind.rawValue) ORDER BY id DESC LIMIT 1")
            .first.map(JobRecord.init(row:))
    }
}
