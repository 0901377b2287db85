import PreviewCore
import PreviewDomain

/// What running a job made of its document: its facts, its preview status (with the failure, if
/// any), the derivatives made for it and the job that follows. The queue records it with the job's own outcome in one
/// transaction (``JobQueue/complete(_:recording:)``), so a document is never seen half processed.
public struct JobOutcome: Sendable {
    /// The document's facts; nil leaves them as they are (a failure before they were learnt).
    package var facts: MediaFacts?
    /// The document's preview status; nil leaves it (a playback job's outcome).
    package var previewStatus: PreviewStatus?
    package var error: PreviewError?
    /// Derivatives whose blobs are durable and whose rows are written with the outcome.
    package var derivatives: [NewDerivative]
    /// A job of this kind queued for the document in the same transaction (a video's playback job).
    package var followUp: JobRecord.Kind?

    package init(
        facts: MediaFacts? = nil, previewStatus: PreviewStatus?, error: PreviewError? = nil, derivatives: [NewDerivative] = [],
        followUp: JobRecord.Kind? = nil
    ) {
        self.facts = facts
        self.previewStatus = previewStatus
        self.error = error
        self.derivatives = derivatives
        self.followUp = followUp
    }

    /// A failure of a preview job: the document shows it, nothing else changes.
    package static func failed(_ error: PreviewError) -> JobOutcome { JobOutcome(previewStatus: .failed, error: error) }
}

/// A derivative just made: its row, and its result blob's size and type (for the blob's row); a
/// text derivative's pages, whose rows are written with its own (``PageTexts``).
package struct NewDerivative: Sendable {
    package var record: DerivativeRecord
    package var size: Int
    package var mime: String
    package var pages: [PageText]

    package init(record: DerivativeRecord, size: Int, mime: String, pages: [PageText] = []) {
        self.record = record
        self.size = size
        self.mime = mime
        self.pages = pages
    }
}
