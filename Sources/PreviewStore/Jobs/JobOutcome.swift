import PreviewCore

/// What running a job made of its document: its facts, its preview status (with the failure, if
/// any), the derivatives made for it and the job that follows. The queue records it with the job's own outcome in one
/// transaction (``JobQueue/complete(_:recording:)``), so a document is never seen half processed.
public struct JobOutcome: Sendable {
    /// The document's facts; nil leaves them as they are (a failure before they were learnt).
    public var facts: MediaFacts?
    /// The document's preview status; nil leaves it (a playback job's outcome).
    public var previewStatus: PreviewStatus?
    public var error: PreviewError?
    /// Derivatives whose blobs are durable and whose rows are written with the outcome.
    public var derivatives: [NewDerivative]
    /// A job of this kind queued for the document in the same transaction (a video's playback job).
    public var followUp: JobRecord.Kind?

    public init(facts: MediaFacts? = nil, previewStatus: PreviewStatus?, error: PreviewError? = nil, derivatives: [NewDerivative] = [],
                followUp: JobRecord.Kind? = nil) {
        self.facts = facts
        self.previewStatus = previewStatus
        self.error = error
        self.derivatives = derivatives
        self.followUp = followUp
    }

    /// A failure of a preview job: the document shows it, nothing else changes.
    public static func failed(_ error: PreviewError) -> JobOutcome { JobOutcome(previewStatus: .failed, error: error) }
}

/// A derivative just made: its row, and its result blob's size and type (for the blob's row); a
/// text derivative's pages, whose rows are written with its own (``PageTexts``).
public struct NewDerivative: Sendable {
    public var record: DerivativeRecord
    public var size: Int
    public var mime: String
    public var pages: [PageText]

    public init(record: DerivativeRecord, size: Int, mime: String, pages: [PageText] = []) {
        self.record = record
        self.size = size
        self.mime = mime
        self.pages = pages
    }
}
