import Foundation
import PreviewCore
import PreviewDomain

/// A durable job queue. The embedded driver is ``SQLiteJobQueue``; `PreviewPostgres` has one
/// for many hosts, with `FOR UPDATE SKIP LOCKED`.
///
/// `complete`, `fail` and `release` act only while the caller still holds the lease: a worker
/// whose lease ran out and was taken over by another cannot overwrite that worker's outcome.
public protocol JobQueue: Sendable {
    /// Indexes `document` as the next version of its (owner, type, title) and queues its job, in one
    /// transaction. The same bytes again return the existing document and its job. With `lease`, a
    /// new job that would wait is leased to it in the same transaction instead (processing, its
    /// attempt counted), for a worker of this process to be handed in memory (``JobArrivals``);
    /// `leased` tells whether it was. With `upload`, the resumable upload whose bytes these are is
    /// marked complete as this document in the same transaction (``UploadSessions/completion(of:document:jobID:)``).
    func enqueue(_ document: Document, leasingTo lease: JobLease?, completing upload: String?) async throws
        -> (document: Document, job: JobRecord, leased: Bool)
    /// Takes the next ready job of one of `kinds` (or one whose lease expired) for `worker`,
    /// counting an attempt: preview jobs before playback jobs, then fairly across owners (see
    /// ``SQLiteJobQueue``). Jobs whose attempts are spent are failed instead of leased.
    func lease(worker: String, leaseSeconds: TimeInterval, kinds: Set<JobRecord.Kind>) async throws -> (job: JobRecord, document: Document)?
    /// Marks the job done and records `outcome` on its document, in one transaction; false when its
    /// lease was lost (the outcome is then the new owner's; only the derivatives are kept, being
    /// right whoever made them).
    @discardableResult
    func complete(_ job: JobRecord, recording outcome: JobOutcome?) async throws -> Bool
    /// Records a failure, and `outcome` on the document, in one transaction: retried later per the
    /// policy when `retryable`, else failed for good. Returns the job as recorded (unchanged when
    /// the lease was lost).
    @discardableResult
    func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) async throws -> JobRecord
    /// Records how far `job` has come (0–1) while its worker still holds the lease.
    func reportProgress(_ job: JobRecord, fraction: Double) async throws
    /// Extends `job`'s lease to `leaseSeconds` from now while its worker still holds it (a running
    /// worker's heartbeat); false when the lease was lost.
    func renewLease(_ job: JobRecord, leaseSeconds: TimeInterval) async throws -> Bool
    /// Queues a new job of `kind` for document `documentID` unless its latest job of that kind is
    /// still queued or running; returns whether it queued one.
    func queueUnlessWaiting(documentID: String, kind: JobRecord.Kind) async throws -> Bool
    /// Gives a leased job back untouched (graceful shutdown), uncounting its attempt.
    func release(_ job: JobRecord) async throws
    func job(id: Int64) async throws -> JobRecord?
    /// The newest preview job of a document.
    func latestJob(documentID: String) async throws -> JobRecord?
    /// The newest job of `kind` of a document.
    func latestJob(documentID: String, kind: JobRecord.Kind) async throws -> JobRecord?
    func jobs(status: JobRecord.Status?, limit: Int) async throws -> [JobRecord]
    /// Queues a failed job again with a fresh set of attempts; false when it is not failed.
    func retry(id: Int64) async throws -> Bool
    /// Queues every failed job again; returns how many.
    func retryFailed() async throws -> Int
    /// Jobs per status.
    func counts() async throws -> [JobRecord.Status: Int]
    /// Returns to the queue the jobs leased by owners that `isDead` says are gone (a worker
    /// process on this host that crashed), without waiting for their leases to expire. The
    /// attempt they used stays counted. Returns how many.
    func reclaimLeases(where isDead: @escaping @Sendable (String) -> Bool) async throws -> Int
}

/// Whom a job is leased to, for how long.
public struct JobLease: Sendable, Equatable {
    package var worker: String
    package var seconds: TimeInterval

    package init(worker: String, seconds: TimeInterval) {
        self.worker = worker
        self.seconds = seconds
    }
}

extension JobQueue {
    /// Indexes `document` and queues its job (``enqueue(_:leasingTo:)`` without a lease).
    public func enqueue(_ document: Document) async throws -> (document: Document, job: JobRecord) {
        let stored = try await enqueue(document, leasingTo: nil, completing: nil)
        return (stored.document, stored.job)
    }

    /// Takes the next ready job of any kind.
    public func lease(worker: String, leaseSeconds: TimeInterval) async throws -> (job: JobRecord, document: Document)? {
        try await lease(worker: worker, leaseSeconds: leaseSeconds, kinds: Set(JobRecord.Kind.allCases))
    }

    public func latestJob(documentID: String) async throws -> JobRecord? { try await latestJob(documentID: documentID, kind: .preview) }

    /// Marks the job done, its document unchanged.
    @discardableResult
    public func complete(_ job: JobRecord) async throws -> Bool { try await complete(job, recording: nil) }

    /// Records a failure of the job, its document unchanged.
    @discardableResult
    package func fail(_ job: JobRecord, error: PreviewError, retryable: Bool) async throws -> JobRecord {
        try await fail(job, error: error, retryable: retryable, recording: nil)
    }
}
