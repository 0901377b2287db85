import PreviewCore
import PreviewStore

/// What happened to one file: a `batch --report` entry, and `ingest --json` with `document_id`.
public struct IngestOutcome: Sendable, Encodable {
    /// DESIGN §7 statuses.
    public enum Status: String, Sendable, Encodable {
        case ok, rejected, failed
        case noPreview = "no_preview"
    }

    public struct Preview: Sendable, Encodable {
        /// The preview blob's path in the store.
        public var path: String
        public var width: Int
        public var height: Int
    }

    public var path: String
    public var sha256: BlobHash?
    public var kind: String?
    public var mime: String?
    public var status: Status
    public var error: ErrorEnvelope.Body?
    public var preview: Preview?
    public var pages: Int?
    public var durationSeconds: Double?
    public var ms: Double
    public var documentID: String?
    /// True when the store already held this exact document and preview (a resumed run).
    public var reused = false
    /// For a video with `--renditions`: its playback decision and what became of its rendition and,
    /// when it is long or large enough for one, of its HLS ladder.
    public var playback: Playback?
    public var rendition: RenditionOutcome?
    public var ladder: RenditionOutcome?

    /// `ready` (with the rendition's size and codecs; a ladder's bytes over all its files and its top
    /// rung's codecs) or `failed` (with the reason).
    public struct RenditionOutcome: Sendable, Encodable {
        public var status: String
        public var size: Int?
        public var codecs: String?
        public var error: ErrorEnvelope.Body?
    }

    enum CodingKeys: String, CodingKey {
        case path, sha256, kind, mime, status, error, preview, pages, ms, reused, playback, rendition, ladder
        case durationSeconds = "duration_s"
        case documentID = "document_id"
    }

    /// The failure, when there was one.
    public var failure: PreviewError? {
        error.flatMap { body in PreviewError.Code(rawValue: body.code).map { PreviewError($0, body.message) } }
    }

    static func status(for error: PreviewError) -> Status {
        error.code.disposition == .refused ? .rejected : .failed
    }
}
