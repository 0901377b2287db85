import Foundation
import PreviewCore

/// What a job adds to the lease contract, the same on both backends: kinds and the preview's
/// priority, a dead-lettered preview failing its document, and an outcome recorded with the
/// job's own update (``IndexWrites``, in the same transaction).
extension Leases where Record == JobRecord {
    /// Leases the next ready job of one of `kinds`: preview jobs before playback jobs, then fairly
    /// across owners (``Leases/lease(worker:seconds:filter:priority:)``). The documents of preview
    /// jobs dead-lettered on the way are failed through `writes`.
    public func lease(worker: String, seconds: TimeInterval, kinds: Set<JobRecord.Kind>, writes: some IndexWrites) throws -> JobRecord? {
        let listed = PortableSQL.joined(kinds.sorted { $0.rawValue < $1.rawValue }.map { "\($0)" }, separator: ", ")
        let filter: PortableSQL = kinds.isEmpty ? "FALSE" : "x.kind IN (\(listed))"
        let (leased, deadLettered) = try lease(worker: worker, seconds: seconds, filter: filter, priority: "x.kind <> \(JobRecord.Kind.preview)")
        for job in deadLettered where job.kind == .preview {
            try writes.setPreviewStatus(documentID: job.documentID, status: .failed, error: job.errorCode.map { PreviewError($0, job.errorMessage ?? "") })
        }
        return leased
    }

    /// Marks the job done and records `outcome`: its derivatives always (right whoever made them),
    /// its facts and status on the document only while the lease held. Returns whether it held.
    public func complete(_ job: JobRecord, recording outcome: JobOutcome?, writes: some IndexWrites) throws -> Bool {
        let held = try finish(job.holder) != nil
        if let outcome { try writes.record(outcome, documentID: job.documentID, onDocument: held) }
        return held
    }

    /// Records a failure (``Leases/fail(_:error:retryable:)``) and `outcome` as ``complete(_:recording:writes:)``
    /// does; returns the job as recorded (unchanged when the lease was lost).
    public func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?,
                     writes: some IndexWrites) throws -> JobRecord {
        let failed = try fail(job.holder, error: error, retryable: retryable)
        if let outcome { try writes.record(outcome, documentID: job.documentID, onDocument: failed != nil) }
        return failed ?? job
    }
}
