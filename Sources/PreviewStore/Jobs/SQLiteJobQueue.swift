import Foundation
import GRDB
import PreviewCore

/// The job queue in the store's own SQLite index (WAL): one write transaction per lease, so
/// workers in several processes never take the same job.
public struct SQLiteJobQueue: JobQueue {
    let index: SQLiteIndex
    public var policy: RetryPolicy

    public init(index: SQLiteIndex, policy: RetryPolicy = RetryPolicy()) {
        self.index = index
        self.policy = policy
    }

    public func enqueue(_ document: DocumentRecord, leasingTo lease: JobLease?) throws -> (document: DocumentRecord, job: JobRecord, leased: Bool) {
        try index.pool.write { db in
            let (stored, inserted) = try SQLiteIndex.insertVersion(document, in: db)
            if !inserted, let existing = try latestJob(documentID: stored.id, kind: .preview, in: db) { return (stored, existing, false) }
            let now = Date()
            var job = JobRecord(id: nil, documentID: stored.id, status: .first(for: stored), attempts: 0,
                                availableAt: now, createdAt: now, updatedAt: now)
            let leasing = job.status == .queued ? lease : nil
            if let leasing {
                job.status = .processing
                job.attempts = 1
                job.leaseOwner = leasing.worker
                job.leaseExpiresAt = now.addingTimeInterval(leasing.seconds)
            }
            try job.insert(db)
            var document = stored
            document.jobStatus = job.status
            return (document, job, leasing != nil)
        }
    }

    public func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) throws -> (job: JobRecord, document: DocumentRecord)? {
        try index.pool.write { db in
            let now = Date()
            let sql = Self.fairest.replacingOccurrences(of: ":kinds", with: JobRecord.Kind.literals(kinds))
            while let candidate = try JobRecord.fetchOne(db, sql: sql, arguments: Self.statuses(["now": now, "preview": JobRecord.Kind.preview])) {
                var job = candidate
                job.updatedAt = now
                if job.attempts >= policy.maxAttempts {
                    // Its worker died with it every time (the lease ran out): dead-letter it.
                    job.status = .failed
                    job.leaseOwner = nil
                    job.leaseExpiresAt = nil
                    job.errorCode = .internal
                    job.errorMessage = RetryPolicy.gaveUp("Processing", after: job.attempts)
                    try job.update(db)
                    if job.kind == .preview { try setDocumentFailed(job, in: db) }
                    continue
                }
                job.status = .processing
                job.progress = nil
                job.attempts += 1
                job.leaseOwner = worker
                job.leaseExpiresAt = now.addingTimeInterval(leaseSeconds)
                try job.update(db)
                guard let document = try DocumentRecord.fetchOne(db, key: job.documentID) else { continue }
                return (job, document)
            }
            return nil
        }
    }

    /// The next job to lease (of the kinds in `:kinds`), fairly across owners: of the jobs ready now
    /// (queued and due, or processing with their lease run out), a preview job before a playback job,
    /// then one of the owner with the fewest jobs running, then the oldest. An owner who queued
    /// thousands of slow files waits behind nobody else's first file, and no thumbnail behind a transcode.
    static let fairest = """
        WITH running AS (
            SELECT d.owner, COUNT(*) AS n FROM jobs r JOIN documents d ON d.id = r.document_id
            WHERE r.status = :processing AND r.lease_expires_at >= :now GROUP BY d.owner)
        SELECT j.* FROM jobs j JOIN documents d ON d.id = j.document_id LEFT JOIN running ON running.owner = d.owner
        WHERE ((j.status = :queued AND j.available_at <= :now) OR (j.status = :processing AND j.lease_expires_at < :now))
            AND j.kind IN (:kinds)
        ORDER BY j.kind <> :preview, COALESCE(running.n, 0), j.available_at, j.id LIMIT 1
        """

    /// `arguments` with every status by name (`:queued`, `:processing`, …), so no SQL spells one.
    static func statuses(_ arguments: StatementArguments = [:]) -> StatementArguments {
        arguments &+ StatementArguments(Dictionary(uniqueKeysWithValues: JobRecord.Status.allCases.map {
            ($0.rawValue, $0 as (any DatabaseValueConvertible)?)
        }))
    }

    @discardableResult
    public func complete(_ job: JobRecord, recording outcome: JobOutcome?) throws -> Bool {
        try index.pool.write { db in
            guard try record(outcome, of: job, in: db) else { return false }
            var job = job
            job.status = .done
            job.leaseOwner = nil
            job.leaseExpiresAt = nil
            job.errorCode = nil
            job.errorMessage = nil
            job.updatedAt = Date()
            try job.update(db)
            return true
        }
    }

    @discardableResult
    public func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) throws -> JobRecord {
        try index.pool.write { db in
            guard try record(outcome, of: job, in: db) else { return job }
            var job = job
            let now = Date()
            job.leaseOwner = nil
            job.leaseExpiresAt = nil
            job.errorCode = error.code
            job.errorMessage = error.message
            job.updatedAt = now
            if retryable, let delay = policy.delay(afterAttempts: job.attempts) {
                job.status = .queued
                job.availableAt = now.addingTimeInterval(delay)
            } else {
                job.status = .failed
            }
            try job.update(db)
            return job
        }
    }

    public func reportProgress(_ job: JobRecord, fraction: Double) throws {
        try index.pool.write { db in
            try db.execute(sql: "UPDATE jobs SET progress = :fraction WHERE id = :id AND status = :processing AND lease_owner = :owner AND attempts = :attempts",
                           arguments: Self.statuses(["fraction": fraction, "id": job.id, "owner": job.leaseOwner, "attempts": job.attempts]))
        }
    }

    public func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) throws -> Bool {
        try index.pool.write { db in
            try db.execute(sql: """
                UPDATE jobs SET lease_expires_at = :until WHERE id = :id AND status = :processing AND lease_owner = :owner AND attempts = :attempts
                """, arguments: Self.statuses(["until": Date().addingTimeInterval(leaseSeconds), "id": job.id, "owner": job.leaseOwner,
                                               "attempts": job.attempts]))
            return db.changesCount > 0
        }
    }

    public func release(_ job: JobRecord) throws {
        try index.pool.write { db in
            guard try holdsLease(job, in: db) else { return }
            var job = job
            job.status = .queued
            job.attempts = max(0, job.attempts - 1)
            job.leaseOwner = nil
            job.leaseExpiresAt = nil
            job.updatedAt = Date()
            try job.update(db)
        }
    }

    public func job(id: Int64) throws -> JobRecord? {
        try index.pool.read { db in try JobRecord.fetchOne(db, key: id) }
    }

    public func queueUnlessWaiting(documentID: String, kind: JobRecord.Kind) throws -> Bool {
        try index.pool.write { db in
            if let latest = try latestJob(documentID: documentID, kind: kind, in: db), [.queued, .processing].contains(latest.status) { return false }
            try SQLiteWrites(db).enqueueJob(documentID: documentID, kind: kind)
            return true
        }
    }

    public func latestJob(documentID: String, kind: JobRecord.Kind) throws -> JobRecord? {
        try index.pool.read { db in try latestJob(documentID: documentID, kind: kind, in: db) }
    }

    public func jobs(status: JobRecord.Status?, limit: Int) throws -> [JobRecord] {
        try index.pool.read { db in
            var request = JobRecord.order(JobRecord.CodingKeys.id.desc).limit(limit)
            if let status { request = request.filter(JobRecord.CodingKeys.status == status) }
            return try request.fetchAll(db)
        }
    }

    /// Queues jobs again with a fresh set of attempts (the caller adds which).
    private static let retrying = """
        UPDATE jobs SET status = :queued, attempts = 0, available_at = :now, error_code = NULL, error_message = NULL, updated_at = :now
        """

    public func retry(id: Int64) throws -> Bool {
        try index.pool.write { db in
            try db.execute(sql: "\(Self.retrying) WHERE id = :id AND status = :failed", arguments: Self.statuses(["now": Date(), "id": id]))
            return db.changesCount > 0
        }
    }

    public func retryFailed() throws -> Int {
        try index.pool.write { db in
            try db.execute(sql: "\(Self.retrying) WHERE status = :failed", arguments: Self.statuses(["now": Date()]))
            return db.changesCount
        }
    }

    public func counts() throws -> [JobRecord.Status: Int] {
        try index.statusCounts(in: "jobs")
    }

    public func reclaimLeases(where isDead: (String) -> Bool) throws -> Int {
        try index.pool.write { db in
            let owners = try String.fetchAll(db, sql: "SELECT DISTINCT lease_owner FROM jobs WHERE status = :processing AND lease_owner IS NOT NULL",
                                             arguments: Self.statuses())
            var reclaimed = 0
            for owner in owners where isDead(owner) {
                try db.execute(sql: """
                    UPDATE jobs SET status = :queued, lease_owner = NULL, lease_expires_at = NULL, available_at = :now, updated_at = :now
                    WHERE status = :processing AND lease_owner = :owner
                    """, arguments: Self.statuses(["now": Date(), "owner": owner]))
                reclaimed += db.changesCount
            }
            return reclaimed
        }
    }

    /// Writes `outcome`'s derivatives and, while `job`'s lease is still its worker's, the outcome on
    /// its document; returns whether the lease held.
    private func record(_ outcome: JobOutcome?, of job: JobRecord, in db: Database) throws -> Bool {
        let held = try holdsLease(job, in: db)
        if let outcome { try SQLiteWrites(db).record(outcome, documentID: job.documentID, onDocument: held) }
        return held
    }

    /// Whether the lease `job` came with is still the job's: its owner and its attempt (every lease
    /// takes a new attempt, so two slots of one worker, which share an owner name, differ here).
    private func holdsLease(_ job: JobRecord, in db: Database) throws -> Bool {
        guard let current = try JobRecord.fetchOne(db, key: job.id) else { return false }
        return current.status == .processing && current.leaseOwner == job.leaseOwner && current.attempts == job.attempts
    }

    private func latestJob(documentID: String, kind: JobRecord.Kind, in db: Database) throws -> JobRecord? {
        try JobRecord.filter(JobRecord.CodingKeys.documentID == documentID && JobRecord.CodingKeys.kind == kind)
            .order(JobRecord.CodingKeys.id.desc).fetchOne(db)
    }

    private func setDocumentFailed(_ job: JobRecord, in db: Database) throws {
        try SQLiteWrites(db).setPreviewStatus(documentID: job.documentID, status: .failed,
                                              error: job.errorCode.map { PreviewError($0, job.errorMessage ?? "") })
    }
}
