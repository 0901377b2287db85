import Foundation
import GRDB
import PreviewCore
import PreviewDomain

/// The job queue in the store's own SQLite index (WAL): one write transaction per lease, so
/// workers in several processes never take the same job.
package struct SQLiteJobQueue: JobQueue {
    let index: SQLiteIndex
    package var policy: RetryPolicy

    package init(index: SQLiteIndex, policy: RetryPolicy = RetryPolicy()) {
        self.index = index
        self.policy = policy
    }

    package func enqueue(_ document: Document, leasingTo lease: JobLease?, completing upload: String?) async throws
        -> (document: Document, job: JobRecord, leased: Bool)
    {
        try await index.pool.write { db in
            let (stored, inserted) = try db.run(VersionInsertion.plan(document, in: .sqlite))
            if !inserted, let existing = try latestJob(documentID: stored.id, kind: .preview, in: db) {
                if let upload { try db.execute(UploadSessions.completion(of: upload, document: stored, jobID: existing.id)) }
                return (stored, existing, false)
            }
            let rows = try db.rows(JobStatements.first(documentID: stored.id, status: .first(for: stored), leasingTo: lease))
            guard let job = try first(rows) else { throw UnreadableRow(table: "jobs") }
            if let upload { try db.execute(UploadSessions.completion(of: upload, document: stored, jobID: job.id)) }
            var document = stored
            document.jobStatus = job.status
            return (document, job, job.status == .processing)
        }
    }

    package func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) async throws -> (job: JobRecord, document: Document)? {
        try await index.pool.write { db in
            guard let job = try db.run(leases.lease(worker: worker, seconds: leaseSeconds, kinds: kinds), JobRecord.init(row:)),
                let document = try db.run(Document.read(id: job.documentID))
            else { return nil }
            return (job, document)
        }
    }

    /// The lease contract over the jobs.
    private var leases: Leases<JobRecord> { Leases(.jobs, dialect: .sqlite, policy: policy) }

    @discardableResult
    package func complete(_ job: JobRecord, recording outcome: JobOutcome?) async throws -> Bool {
        try await index.pool.write { db in try db.run(leases.complete(job, recording: outcome), JobRecord.init(row:)) }
    }

    @discardableResult
    package func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) async throws -> JobRecord {
        try await index.pool.write { db in
            try db.run(leases.fail(job, error: error, retryable: retryable, recording: outcome), JobRecord.init(row:))
        }
    }

    package func reportProgress(_ job: JobRecord, fraction: Double) async throws {
        try await index.pool.write { db in
            try db.execute([JobStatements.progress(of: job, fraction: fraction)])
        }
    }

    package func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) async throws -> Bool {
        try await index.pool.write { db in try db.run(leases.renew(job.holder, seconds: leaseSeconds), JobRecord.init(row:)) }
    }

    package func release(_ job: JobRecord) async throws {
        try await index.pool.write { db in _ = try db.run(leases.release(job.holder), JobRecord.init(row:)) }
    }

    package func job(id: Int64) async throws -> JobRecord? {
        try await index.pool.read { db in try first(try db.rows(JobStatements.job(id: id))) }
    }

    package func queueUnlessWaiting(documentID: String, kind: JobRecord.Kind) async throws -> Bool {
        try await index.pool.write { db in
            if let latest = try latestJob(documentID: documentID, kind: kind, in: db), [.queued, .processing].contains(latest.status) { return false }
            try db.execute([IndexWrites.enqueueJob(documentID: documentID, kind: kind)])
            return true
        }
    }

    package func latestJob(documentID: String, kind: JobRecord.Kind) async throws -> JobRecord? {
        try await index.pool.read { db in try latestJob(documentID: documentID, kind: kind, in: db) }
    }

    package func jobs(status: JobRecord.Status?, limit: Int) async throws -> [JobRecord] {
        try await index.pool.read { db in
            try db.rows(JobStatements.newest(status: status, limit: limit)).map { try JobRecord(row: PortableRow(row: $0)) }
        }
    }

    package func retry(id: Int64) async throws -> Bool {
        try await index.pool.write { db in try !db.run(leases.requeueFailed(key: .integer(id)), JobRecord.init(row:)).isEmpty }
    }

    package func retryFailed() async throws -> Int {
        try await index.pool.write { db in try db.run(leases.requeueFailed(), JobRecord.init(row:)).count }
    }

    package func counts() async throws -> [JobRecord.Status: Int] {
        try await index.statusCounts(in: "jobs")
    }

    package func reclaimLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await index.pool.write { [leases] db in try db.run(leases.reclaim(where: isDead), JobRecord.init(row:)) }
    }

    private func latestJob(documentID: String, kind: JobRecord.Kind, in db: Database) throws -> JobRecord? {
        try first(try db.rows(JobStatements.latest(documentID: documentID, kind: kind)))
    }

    /// The job of the first of `rows`, if any.
    private func first(_ rows: [Row]) throws -> JobRecord? {
        try rows.first.map { try JobRecord(row: PortableRow(row: $0)) }
    }
}
