import Foundation
import PreviewCore

/// The index of a store: documents, blobs and derivatives (DESIGN §5). A row is only ever
/// written after the blob it names is durable in the ``BlobStore``.
///
/// Drivers: ``SQLiteIndex`` (embedded, `index.sqlite` beside the blobs) and the PostgreSQL one
/// in `PreviewPostgres`, for many workers on many hosts (DESIGN §11). Implementations are
/// thread-safe and safe to share between processes.
public protocol DocumentIndex: Sendable {
    /// Every blob hash a document or derivative refers to (both sides of derivatives).
    func referencedBlobs() throws -> Set<BlobHash>
    /// Forgets blob rows that no document or derivative uses; returns their hashes.
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
    /// Documents (of `owner`, or all), newest first.
    func documents(owner: String?) throws -> [DocumentRecord]

    func derivative(key: String) throws -> DerivativeRecord?
    /// Records a derivative whose result blob is already durable (first writer wins).
    func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) throws

    /// Figures for the storage cards, from the index alone (no disk walk): SQL aggregates.
    func statistics(owner: String?) throws -> StorageStatistics
}

extension DocumentIndex {
    public func statistics() throws -> StorageStatistics { try statistics(owner: nil) }
}
