import Foundation
import PostgresNIO
import PreviewCore
import PreviewDomain
import PreviewStore

/// The job queue in PostgreSQL, for workers on many hosts (DESIGN §11). Leasing, retries, back-off
/// and dead-letters are the contract both backends share (``Leases``): here a lease takes its row
/// with `FOR UPDATE SKIP LOCKED`, so concurrent workers never wait on each other's rows and never
/// take the same job, and times are the database server's clock, so hosts with skewed clocks agree
/// on when a lease runs out.
public struct PostgresJobQueue: JobQueue {
    let connections: PostgresConnections
    package var policy: RetryPolicy

    /// `index` must be built on the same `connections` (it migrates the schema).
    public init(index: PostgresIndex, policy: RetryPolicy = RetryPolicy()) {
        connections = index.connections
        self.policy = policy
    }

    public func enqueue(_ document: Document, leasingTo lease: JobLease?, completing upload: String?) async throws
        -> (document: Document, job: JobRecord, leased: Bool)
    {
        try await connections.transaction { session in
            let (stored, inserted) = try await session.run(VersionInsertion.plan(document, in: .postgres), PortableRow.init(row:))
            if !inserted, let existing = try await latestJob(documentID: stored.id, kind: .preview, in: session) {
                if let upload { try await session.execute(UploadSessions.completion(of: upload, document: stored, jobID: existing.id)) }
                return (stored, existing, false)
            }
            let first = JobStatements.first(documentID: stored.id, status: .first(for: stored), leasingTo: lease)
            let rows = try await session.query(PostgresQuery(first))
            guard let job = try rows.first.map(JobRecord.init(row:)) else { throw PostgresDriverError("INSERT INTO jobs returned no row.") }
            if let upload { try await session.execute(UploadSessions.completion(of: upload, document: stored, jobID: job.id)) }
            var document = stored
            document.jobStatus = job.status
            return (document, job, job.status == .processing)
        }
    }

    public func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) async throws -> (job: JobRecord, document: Document)? {
        // A transaction, so that a lease PostgreSQL ends for a conflict is run again.
        try await connections.transaction { session in
            guard let job = try await run(leases.lease(worker: worker, seconds: leaseSeconds, kinds: kinds), on: session),
                let document = try await session.run(Document.read(id: job.documentID), PortableRow.init(row:))
            else { return nil }
            return (job, document)
        }
    }

    /// The lease contract over the jobs.
    private var leases: Leases<JobRecord> { Leases(.jobs, dialect: .postgres, policy: policy) }

    /// Runs `plan` of the lease contract on `session`.
    private func run<T>(_ plan: Leases<JobRecord>.Plan<T>, on session: Session) async throws -> T {
        try await session.run(plan, JobRecord.init(row:))
    }

    @discardableResult
    public func complete(_ job: JobRecord, recording outcome: JobOutcome?) async throws -> Bool {
        try await session(recording: outcome) { session in try await run(leases.complete(job, recording: outcome), on: session) }
    }

    @discardableResult
    public func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) async throws -> JobRecord {
        try await session(recording: outcome) { session in
            try await run(leases.fail(job, error: error, retryable: retryable, recording: outcome), on: session)
        }
    }

    /// A transaction when there is an outcome to write with the job's own update; else that one
    /// statement alone, without the round trips of BEGIN and COMMIT.
    private func session<T>(recording outcome: JobOutcome?, _ body: (Session) async throws -> T) async throws -> T {
        outcome == nil ? try await connections.withConnection(body) : try await connections.transaction(body)
    }

    public func reportProgress(_ job: JobRecord, fraction: Double) async throws {
        try await connections.query(PostgresQuery(JobStatements.progress(of: job, fraction: fraction)))
    }

    public func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) async throws -> Bool {
        try await connections.withConnection { session in try await run(leases.renew(job.holder, seconds: leaseSeconds), on: session) }
    }

    public func release(_ job: JobRecord) async throws {
        try await connections.withConnection { session in _ = try await run(leases.release(job.holder), on: session) }
    }

    public func job(id: Int64) async throws -> JobRecord? {
        try await connections.query(PostgresQuery(JobStatements.job(id: id))).first.map(JobRecord.init(row:))
    }

    public func queueUnlessWaiting(documentID: String, kind: JobRecord.Kind) async throws -> Bool {
        try await connections.transaction { session in
            // The document's row lock orders two callers: the second sees the first one's job.
            try await session.query("SELECT id FROM documents WHERE id = \(documentID) FOR UPDATE")
            if let latest = try await latestJob(documentID: documentID, kind: kind, in: session), [.queued, .processing].contains(latest.status) {
                return false
            }
            try await session.execute([IndexWrites.enqueueJob(documentID: documentID, kind: kind)])
            return true
        }
    }

    public func latestJob(documentID: String, kind: JobRecord.Kind) async throws -> JobRecord? {
        try await connections.withConnection { session in try await latestJob(documentID: documentID, kind: kind, in: session) }
    }

    public func jobs(status: JobRecord.Status?, limit: Int) async throws -> [JobRecord] {
        try await connections.query(PostgresQuery(JobStatements.newest(status: status, limit: limit))).map(JobRecord.init(row:))
    }

    public func retry(id: Int64) async throws -> Bool {
        try await connections.withConnection { session in try await !run(leases.requeueFailed(key: .integer(id)), on: session).isEmpty }
    }

    public func retryFailed() async throws -> Int {
        try await connections.withConnection { session in try await run(leases.requeueFailed(), on: session).count }
    }

    public func counts() async throws -> [JobRecord.Status: Int] {
        try await connections.withConnection { session in
            var counts = Dictionary(uniqueKeysWithValues: JobRecord.Status.allCases.map { ($0, 0) })
            for row in try await session.query(PostgresQuery(unsafeSQL: StatusCounts.query("jobs", JobRecord.Status.self))) {
                counts[try row.decode("status", as: JobRecord.Status.self)] = try row["n"].decode(Int.self)
            }
            return counts
        }
    }

    public func reclaimLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await connections.withConnection { session in try await run(leases.reclaim(where: isDead), on: session) }
    }

    private func latestJob(documentID: String, kind: JobRecord.Kind, in session: Session) async throws -> JobRecord? {
        try await session.query(PostgresQuery(JobStatements.latest(documentID: documentID, kind: kind))).first.map(JobRecord.init(row:))
    }
}
