import PreviewCore
import PreviewDomain

/// What happened to one file: a `batch --report` entry, and `ingest --json` with `document_id`.
public struct IngestOutcome: Sendable, Encodable {
    /// DESIGN §7 statuses.
    public enum Status: String, Sendable, Encodable {
        case ok, rejected, failed
        case noPreview = "no_preview"
    }

    package struct Preview: Sendable, Encodable {
        /// The preview blob's path in the store.
        package var path: String
        package var width: Int
        package var height: Int
    }

    package var path: String
    package var sha256: BlobHash?
    package var kind: String?
    package var mime: String?
    public var status: Status
    package var error: ErrorEnvelope.Body?
    package var preview: Preview?
    package var pages: Int?
    package var durationSeconds: Double?
    package var ms: Double
    public var documentID: String?
    /// True when the store already held this exact document and preview (a resumed run).
    package var reused = false
    /// For a video with `--renditions`: its playback decision and what became of its rendition and,
    /// when it is long or large enough for one, of its HLS ladder.
    package var playback: Playback?
    package var rendition: RenditionOutcome?
    package var ladder: RenditionOutcome?

    /// `ready` (with the rendition's size and codecs; a ladder's bytes over all its files and its top
    /// rung's codecs) or `failed` (with the reason).
    package struct RenditionOutcome: Sendable, Encodable {
        package var status: String
        package var size: Int?
        package var codecs: String?
        package var error: ErrorEnvelope.Body?
    }

    enum CodingKeys: String, CodingKey {
        case path, sha256, kind, mime, status, error, preview, pages, ms, reused, playback, rendition, ladder
        case durationSeconds = "duration_s"
        case documentID = "document_id"
    }

    /// The failure, when there was one.
    package var failure: PreviewError? {
        error.flatMap { body in PreviewError.Code(rawValue: body.code).map { PreviewError($0, body.message) } }
    }

    static func status(for error: PreviewError) -> Status {
        error.code.disposition == .refused ? .rejected : .failed
    }
}
