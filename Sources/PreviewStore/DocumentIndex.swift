import Foundation
import PreviewCore

/// The index of a store: documents, blobs and derivatives (DESIGN §5). A row is only ever
/// written after the blob it names is durable in the ``BlobStore``.
///
/// Drivers: ``SQLiteIndex`` (embedded, `index.sqlite` beside the blobs) and the PostgreSQL one
/// in `PreviewPostgres`, for many workers on many hosts (DESIGN §11). Implementations are
/// thread-safe and safe to share between processes.
public protocol DocumentIndex: Sendable {
    /// Every blob a document refers to, and the derivatives of those (transitively): what `gc` keeps.
    func referencedBlobs() throws -> Set<BlobHash>
    /// Forgets derivatives whose source no document (or a derivative of one) uses any more, then
    /// blob rows that nothing uses; returns the forgotten blobs' hashes.
    func forgetUnusedBlobs() throws -> [BlobHash]

    /// Inserts `document` as the next version of (owner, type, title), with its original's blob
    /// row in the same transaction, unless its latest version already has the same bytes — then
    /// that version is returned and nothing changes (idempotent).
    func insertVersion(_ document: DocumentRecord) throws -> (document: DocumentRecord, inserted: Bool)
    /// Stores a document's probed facts.
    func setFacts(documentID: String, facts: MediaFacts) throws
    /// The highest version of (owner, type, title), if any.
    func latestVersion(owner: String, type: String, title: String) throws -> DocumentRecord?
    /// Updates a document's preview status and error.
    func setPreviewStatus(documentID: String, status: PreviewStatus, error: PreviewError?) throws
    func document(id: String) throws -> DocumentRecord?
    /// The newest document whose original has this hash.
    func latestDocument(sha256: BlobHash) throws -> DocumentRecord?
    /// One page of the latest versions that match `query`.
    func list(_ query: DocumentQuery) throws -> DocumentPage
    /// Every version of the document that `id` is a version of, newest first; empty when there is none.
    func versions(of id: String) throws -> [DocumentRecord]
    /// Removes the document that `id` is a version of (every version, or only `version`) with its
    /// jobs, so that a running job's outcome is fenced off. Blobs stay until `gc`.
    func delete(documentID id: String, version: Int?) throws -> Deletion
    /// Gives every version of the document that `id` is a version of a new title and type; nil
    /// when there is no such document. Throws ``LabelTaken`` when the owner has another document
    /// under that (type, title).
    func relabel(documentID id: String, title: String, type: String) throws -> DocumentRecord?

    func derivative(key: String) throws -> DerivativeRecord?
    /// Records a derivative whose result blob is already durable (first writer wins).
    func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) throws

    /// Figures for the storage cards, from the index alone (no disk walk): SQL aggregates.
    func statistics(owner: String?) throws -> StorageStatistics
}

extension DocumentIndex {
    public func statistics() throws -> StorageStatistics { try statistics(owner: nil) }
}

/// Another document of the owner already has the (type, title) a relabel asked for.
public struct LabelTaken: Error, Sendable {
    public var type: String
    public var title: String

    public init(type: String, title: String) {
        self.type = type
        self.title = title
    }
}
