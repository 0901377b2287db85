import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// The job queue in PostgreSQL, for workers on many hosts (DESIGN §11). Leasing, retries, back-off
/// and dead-letters are the contract both backends share (``Leases``): here a lease takes its row
/// with `FOR UPDATE SKIP LOCKED`, so concurrent workers never wait on each other's rows and never
/// take the same job, and times are the database server's clock, so hosts with skewed clocks agree
/// on when a lease runs out.
public struct PostgresJobQueue: JobQueue {
    let connections: PostgresConnections
    public var policy: RetryPolicy

    /// `index` must be built on the same `connections` (it migrates the schema).
    public init(index: PostgresIndex, policy: RetryPolicy = RetryPolicy()) {
        connections = index.connections
        self.policy = policy
    }

    public func enqueue(_ document: Document, leasingTo lease: JobLease?) throws -> (document: Document, job: JobRecord, leased: Bool) {
        try connections.transaction { session in
            let (stored, inserted) = try PostgresIndex.insertVersion(document, in: session)
            if !inserted, let existing = try latestJob(documentID: stored.id, kind: .preview, in: session) { return (stored, existing, false) }
            let first = JobRecord.Status.first(for: stored)
            let leasing = first == .queued ? lease : nil
            let status = leasing == nil ? first : .processing
            let expires: PortableSQL = leasing.map { PortableSQL.later($0.seconds) } ?? "NULL"
            let insert: PortableSQL = """
                INSERT INTO jobs (document_id, status, attempts, lease_owner, lease_expires_at, available_at, created_at, updated_at)
                VALUES (\(stored.id), \(status), \(leasing == nil ? 0 : 1), \(leasing?.worker), \(expires), \(PortableSQL.now), \(PortableSQL.now), \(PortableSQL.now))
                RETURNING *
                """
            let job = try JobRecord(row: try session.query(PostgresQuery(insert))[0])
            var document = stored
            document.jobStatus = job.status
            return (document, job, leasing != nil)
        }
    }

    public func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) throws -> (job: JobRecord, document: Document)? {
        // A transaction, so that a lease PostgreSQL ends for a conflict is run again.
        try connections.transaction { session in
            guard let job = try leases(in: session).lease(worker: worker, seconds: leaseSeconds, kinds: kinds, writes: PostgresWrites(session)),
                  let document = try session.query("SELECT * FROM documents WHERE id = \(job.documentID)").first else { return nil }
            return (job, try Document(row: document))
        }
    }

    /// The lease contract over the jobs, on `session`.
    private func leases(in session: Session) -> Leases<JobRecord> {
        Leases(.jobs, dialect: .postgres, policy: policy) { sql in try session.query(PostgresQuery(sql)).map(JobRecord.init(row:)) }
    }

    @discardableResult
    public func complete(_ job: JobRecord, recording outcome: JobOutcome?) throws -> Bool {
        try session(recording: outcome) { session in try leases(in: session).complete(job, recording: outcome, writes: PostgresWrites(session)) }
    }

    @discardableResult
    public func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) throws -> JobRecord {
        try session(recording: outcome) { session in
            try leases(in: session).fail(job, error: error, retryable: retryable, recording: outcome, writes: PostgresWrites(session))
        }
    }

    /// A transaction when there is an outcome to write with the job's own update; else that one
    /// statement alone, without the round trips of BEGIN and COMMIT.
    private func session<T>(recording outcome: JobOutcome?, _ body: (Session) throws -> T) throws -> T {
        outcome == nil ? try connections.withConnection(body) : try connections.transaction(body)
    }

    public func reportProgress(_ job: JobRecord, fraction: Double) throws {
        try connections.query("""
            UPDATE jobs SET progress = \(fraction) WHERE id = \(job.id) AND status = \(JobRecord.Status.processing.rawValue)
            AND lease_owner = \(job.leaseOwner) AND attempts = \(job.attempts)
            """)
    }

    public func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) throws -> Bool {
        try connections.withConnection { session in try leases(in: session).renew(job.holder, seconds: leaseSeconds) }
    }

    public func release(_ job: JobRecord) throws {
        try connections.withConnection { session in _ = try leases(in: session).release(job.holder) }
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
        try connections.withConnection { session in try !leases(in: session).requeueFailed(key: .integer(id)).isEmpty }
    }

    public func retryFailed() throws -> Int {
        try connections.withConnection { session in try leases(in: session).requeueFailed().count }
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
        try connections.withConnection { session in try leases(in: session).reclaim(where: isDead) }
    }

    private func latestJob(documentID: String, kind: JobRecord.Kind, in session: Session) throws -> JobRecord? {
        try session.query("SELECT * FROM jobs WHERE document_id = \(documentID) AND kind = \(kind.rawValue) ORDER BY id DESC LIMIT 1")
            .first.map(JobRecord.init(row:))
    }
}
