import Foundation
import PreviewCore
import PreviewDomain

/// What a job adds to the lease contract, the same on both backends: kinds and the preview's
/// priority, a dead-lettered preview failing its document, and an outcome recorded with the
/// job's own update (``IndexWrites``, in the same transaction).
extension Leases where Record == JobRecord {
    /// Leases the next ready job of one of `kinds`: preview jobs before playback jobs, then fairly
    /// across owners (``Leases/lease(worker:seconds:filter:priority:)``). The documents of preview
    /// jobs dead-lettered on the way are failed.
    package func lease(worker: String, seconds: TimeInterval, kinds: Set<JobRecord.Kind>) -> Plan<JobRecord?> {
        let listed = PortableSQL.list(kinds.sorted { $0.rawValue < $1.rawValue })
        let filter: PortableSQL = kinds.isEmpty ? "FALSE" : "x.kind IN (\(listed))"
        return lease(worker: worker, seconds: seconds, filter: filter, priority: "x.kind <> \(JobRecord.Kind.preview)").then { leased, deadLettered in
            let failures = deadLettered.filter { $0.kind == .preview }.map { job in
                let error = job.errorCode.map { PreviewError($0, job.errorMessage ?? "") }
                return IndexWrites.setPreviewStatus(documentID: job.documentID, status: .failed, error: error)
            }
            return Plan.each(failures, then: leased)
        }
    }

    /// Marks the job done and records `outcome`: its derivatives always (right whoever made them),
    /// its facts and status on the document only while the lease held. Returns whether it held.
    package func complete(_ job: JobRecord, recording outcome: JobOutcome?) -> Plan<Bool> {
        finish(job.holder).then { finished in
            Plan.each(outcome.map { IndexWrites.record($0, documentID: job.documentID, onDocument: finished != nil) } ?? [], then: finished != nil)
        }
    }

    /// Records a failure (``Leases/fail(_:error:retryable:)``) and `outcome` as ``complete(_:recording:)``
    /// does; returns the job as recorded (unchanged when the lease was lost).
    package func fail(_ job: JobRecord, error: PreviewError, retryable: Bool, recording outcome: JobOutcome?) -> Plan<JobRecord> {
        fail(job.holder, error: error, retryable: retryable).then { failed in
            Plan.each(outcome.map { IndexWrites.record($0, documentID: job.documentID, onDocument: failed != nil) } ?? [], then: failed ?? job)
        }
    }
}
