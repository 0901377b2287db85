import PreviewCore

/// The row writes that a document's processing comes to, inside one transaction of either backend:
/// each driver says how to write a row in its dialect, and what a job's outcome is made of is
/// said once, here.
public protocol IndexWrites {
    /// Records a derivative whose result blob is already durable, with the blob's row (first writer wins).
    func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) throws
    func setFacts(documentID: String, facts: MediaFacts) throws
    func setPreviewStatus(documentID: String, status: PreviewStatus, error: PreviewError?) throws
    /// Queues a new job of `kind` for the document, ready now.
    func enqueueJob(documentID: String, kind: JobRecord.Kind) throws
}

extension IndexWrites {
    /// Writes `outcome`'s derivatives and, when `onDocument`, its facts and status on document
    /// `documentID` (a job whose lease was lost keeps only the derivatives, right whoever made them).
    public func record(_ outcome: JobOutcome, documentID: String, onDocument: Bool = true) throws {
        for made in outcome.derivatives {
            try recordDerivative(made.record, resultSize: made.size, resultMime: made.mime)
        }
        guard onDocument else { return }
        if let facts = outcome.facts { try setFacts(documentID: documentID, facts: facts) }
        if let status = outcome.previewStatus { try setPreviewStatus(documentID: documentID, status: status, error: outcome.error) }
        if let kind = outcome.followUp { try enqueueJob(documentID: documentID, kind: kind) }
    }
}
