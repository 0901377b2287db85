import Foundation
import GRDB
import PreviewCore

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
            let (stored, inserted) = try SQLiteIndex.insertVersion(document, in: db)
            if !inserted, let existing = try latestJob(documentID: stored.id, kind: .preview, in: db) {
                if let upload { try db.execute(UploadSessions.completion(of: upload, document: stored, jobID: existing.id)) }
                return (stored, existing, false)
            }
            let now = Date()
            var job = JobRecord(
                id: nil, documentID: stored.id, status: .first(for: stored), attempts: 0,
                availableAt: now, createdAt: now, updatedAt: now)
            let leasing = job.status == .queued ? lease : nil
            if let leasing {
                job.status = .processing
                job.attempts = 1
                job.leaseOwner = leasing.worker
                job.leaseExpiresAt = now.addingTimeInterval(leasing.seconds)
            }
            try job.insert(db)
            if let upload { try db.execute(UploadSessions.completion(of: upload, document: stored, jobID: job.id)) }
            var document = stored
            document.jobStatus = job.status
            return (document, job, leasing != nil)
        }
    }

    package func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) async throws -> (job: JobRecord, document: Document)? {
        try await index.pool.write { db in
            guard let job = try db.run(leases.lease(worker: worker, seconds: leaseSeconds, kinds: kinds)),
                let document = try DocumentRow.fetchOne(db, key: job.documentID)?.document
            else { return nil }
            return (job, document)
        }
    }

    /// The lease contract over the jobs.
    private var leases: Leases<JobRecord> { Leases(.jobs, dialect: .sqlite, policy: policy) }

    @discardableResult
    package func complete(_ job: JobRecord, recording outcome: JobOutcome?) async throws -> Bool {
        try await index.pool.write { db in try db.run(leases.complete(job, recording: outcome)) }
    }

    @discardableResult
    package func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) async throws -> JobRecord {
        try await index.pool.write { db in
            try db.run(leases.fail(job, error: error, retryable: retryable, recording: outcome))
        }
    }

    package func reportProgress(_ job: JobRecord, fraction: Double) async throws {
        try await index.pool.write { db in
            try db.execute(
                sql: "UPDATE jobs SET progress = ? WHERE id = ? AND status = ? AND lease_owner = ? AND attempts = ?",
                arguments: [fraction, job.id, JobRecord.Status.processing, job.leaseOwner, job.attempts])
        }
    }

    package func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) async throws -> Bool {
        try await index.pool.write { db in try db.run(leases.renew(job.holder, seconds: leaseSeconds)) }
    }

    package func release(_ job: JobRecord) async throws {
        try await index.pool.write { db in _ = try db.run(leases.release(job.holder)) }
    }

    package func job(id: Int64) async throws -> JobRecord? {
        try await index.pool.read { db in try JobRecord.fetchOne(db, key: id) }
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
            var request = JobRecord.order(JobRecord.CodingKeys.id.desc).limit(limit)
            if let status { request = request.filter(JobRecord.CodingKeys.status == status) }
            return try request.fetchAll(db)
        }
    }

    package func retry(id: Int64) async throws -> Bool {
        try await index.pool.write { db in try !db.run(leases.requeueFailed(key: .integer(id))).isEmpty }
    }

    package func retryFailed() async throws -> Int {
        try await index.pool.write { db in try db.run(leases.requeueFailed()).count }
    }

    package func counts() async throws -> [JobRecord.Status: Int] {
        try await index.statusCounts(in: "jobs")
    }

    package func reclaimLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await index.pool.write { [leases] db in try db.run(leases.reclaim(where: isDead)) }
    }

    private func latestJob(documentID: String, kind: JobRecord.Kind, in db: Database) throws -> JobRecord? {
        try JobRecord.filter(JobRecord.CodingKeys.documentID == documentID && JobRecord.CodingKeys.kind == kind)
            .order(JobRecord.CodingKeys.id.desc).fetchOne(db)
    }

}
