import Foundation
import PreviewCore

/// The index of a store: documents, blobs and derivatives (DESIGN §5). A row is only ever
/// written after the blob it names is durable in the ``BlobStore``.
///
/// Drivers: ``SQLiteIndex`` (embedded, `index.sqlite` beside the blobs) and the PostgreSQL one
/// in `PreviewPostgres`, for many workers on many hosts (DESIGN §11). Implementations are
/// thread-safe and safe to share between processes.
public protocol DocumentIndex: PortableDatabase {
    /// Every blob a document refers to, and the derivatives of those (transitively): what `gc` keeps.
    func referencedBlobs() async throws -> Set<BlobHash>
    /// Every blob the index has a row for (referenced or not: a deleted document's blobs keep
    /// theirs until `gc`). A blob on disk without one is one the index lost track of.
    func indexedBlobs() async throws -> Set<BlobHash>
    /// The sources of every derivative row.
    func derivativeSources() async throws -> Set<BlobHash>
    /// Forgets derivatives whose source no document (or a derivative of one) uses any more; returns how many.
    @discardableResult
    func forgetDeadDerivatives() async throws -> Int
    /// What the database's own consistency checks find wrong (SQLite's integrity and foreign-key
    /// checks; rows naming blobs the index has no row for); empty when the index is sound.
    func integrityProblems() async throws -> [String]

    /// Inserts `document` as the next version of (owner, type, title), with its original's blob
    /// row in the same transaction, unless its latest version already has the same bytes — then
    /// that version is returned and nothing changes (idempotent).
    func insertVersion(_ document: Document) async throws -> (document: Document, inserted: Bool)
    /// The highest version of (owner, type, title), if any.
    func latestVersion(owner: String, type: DocumentType.ID?, title: String) async throws -> Document?
    /// Records what processing a document made (its derivatives, facts and preview status) in one
    /// transaction, for a document without a job (a job's outcome is recorded by its queue).
    func record(_ outcome: JobOutcome, documentID: String) async throws
    func document(id: String) async throws -> Document?
    /// The documents of `ids` that exist, in one read (in no particular order).
    func documents(ids: [String]) async throws -> [Document]
    /// The newest document whose original has this hash.
    func latestDocument(sha256: BlobHash) async throws -> Document?
    /// One page of the latest versions that match `query`.
    func list(_ query: DocumentQuery) async throws -> DocumentPage
    /// Every version of the document that `id` is a version of, newest first; empty when there is none.
    func versions(of id: String) async throws -> [Document]
    /// Removes the document that `id` is a version of (every version, or only `version`) with its
    /// jobs, so that a running job's outcome is fenced off, in one transaction with its shares: a
    /// share of a removed version is revoked, a share of the latest version moves to the newest
    /// version that remains (revoked when none does). Blobs stay until `gc`.
    func delete(documentID id: String, version: Int?) async throws -> Deletion

    /// Gives the document that `id` is a version of new labels (``Relabelling``); returns version
    /// `id` as it now is, or nil when there is no such document. Throws ``LabelTaken`` when the owner has
    /// another document under the new (type, title).
    func relabel(documentID id: String, to labels: Relabelling) async throws -> Document?

    func derivative(key: String) async throws -> DerivativeRecord?
    /// The derivative rows made with `parameters` (every video's `playback.json`, for `verify`).
    func derivatives(parameters: String) async throws -> [DerivativeRecord]
    /// The size the index has for blob `hash`; nil when it has no row.
    func blobSize(_ hash: BlobHash) async throws -> Int?
    /// Records a derivative whose result blob is already durable (first writer wins).
    func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) async throws

    /// Marks the on-demand derivatives `keys` as used now, for least-recently-used eviction.
    func touchDerivatives(_ keys: [String]) async throws
    /// Bytes of on-demand derivatives: of `source`, or of the whole store.
    func onDemandPreviewBytes(source: BlobHash?) async throws -> Int
    /// Forgets on-demand derivatives (of `source`, or of any), least recently used first, until
    /// those left take at most `bytes`; counts them in the store's evictions.
    func evictPreviews(source: BlobHash?, downTo bytes: Int) async throws -> PreviewEviction
    /// Of `hashes`, the blobs that no document or derivative refers to: their rows are removed and
    /// they are returned, for their files to be removed (under the exclusive reference lock).
    func forgetBlobs(ifUnused hashes: [BlobHash]) async throws -> [BlobHash]

    /// The remembered failure of the render or conversion keyed `key` (a derivative key), if any.
    func failure(key: String) async throws -> RenderFailure?
    /// Remembers that the render or conversion keyed `failure.key` timed out or crashed its renderer.
    func recordFailure(_ failure: RenderFailure) async throws
    /// Forgets the remembered failures of `source` and of what is derived from it (an office
    /// document's pivot), or every one when `source` is nil; returns how many.
    @discardableResult
    func forgetFailures(source: BlobHash?) async throws -> Int

    /// Figures for the storage cards: counters kept with the rows (``StoreFigures``), a few rows read
    /// whatever the store's size.
    func statistics(owner: String?) async throws -> StorageStatistics
    /// The same figures counted again from every row (slow): what `verify` checks the kept ones against.
    func recountStatistics(owner: String?) async throws -> StorageStatistics
}

extension DocumentIndex {
    public func statistics() async throws -> StorageStatistics { try await statistics(owner: nil) }
}

/// Another document of the owner already has the (type, title) a relabel asked for.
public struct LabelTaken: Error, Sendable {
    package var type: DocumentType.ID?
    package var title: String

    package init(type: DocumentType.ID?, title: String) {
        self.type = type
        self.title = title
    }
}
