import Foundation
import PreviewCore
import PreviewStore

/// How a job's run ended, as the queue recorded it.
public enum JobRun: Sendable {
    case done
    /// Failed with `code`: queued again later when `retrying`, else failed for good.
    case failed(PreviewError.Code, retrying: Bool)
    /// The store refused (a full disk, an unreachable database), not the file: the job was given
    /// back untouched, its attempt uncounted.
    case released(PreviewError)
    /// Its lease ran out and another worker took it over: that worker's outcome stands.
    case leaseLost
}

/// A job's run: what it makes (the renderers' work, for the renders lane), then one transaction
/// that records it with the job's end (for the writes lane).
extension DocumentService {
    /// The facts and thumbnail of `document`, or its failure (``DocumentPipeline/outcome(of:)``).
    public func outcome(of document: DocumentRecord) -> JobOutcome {
        pipeline.outcome(of: document)
    }

    /// Ends `job` with `outcome`: the document's facts, thumbnail and status are written with the
    /// job's completion or failure in one transaction (input errors are not retried; ours are, per
    /// the queue's policy). A failure of the store itself gives the job back instead. Throws when
    /// the store cannot record even that.
    public func finish(_ job: JobRecord, with outcome: JobOutcome) throws -> JobRun {
        if let error = outcome.error, StoreFault(error) != nil {
            try queue.release(job)
            return .released(error)
        }
        // Under the reference lock, like an upload: gc cannot take a new thumbnail before its row is written.
        return try store.blobs.whileReferencing(exclusive: false) { () throws -> JobRun in
            guard let error = outcome.error else { return try queue.complete(job, recording: outcome) ? .done : .leaseLost }
            let recorded = try queue.fail(job, error: error, retryable: error.code.disposition == .internal, recording: outcome)
            return recorded.status == .processing ? .leaseLost : .failed(error.code, retrying: recorded.status == .queued)
        }
    }

    /// ``outcome(of:)`` then ``finish(_:with:)``, in the caller's thread.
    public func run(_ job: JobRecord, of document: DocumentRecord) throws -> JobRun {
        try finish(job, with: outcome(of: document))
    }
}
