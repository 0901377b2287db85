import Foundation
import PreviewCore
import PreviewDomain

/// The index of a store: documents, blobs and derivatives (DESIGN §5). A row is only ever
/// written after the blob it names is durable in the ``BlobStore``.
///
/// Drivers: ``SQLiteIndex`` (embedded, `index.sqlite` beside the blobs) and the PostgreSQL one
/// in `PreviewPostgres`, for many workers on many hosts (DESIGN §11). Implementations are
/// thread-safe and safe to share between processes.
public protocol DocumentIndex: PortableDatabase {
    /// What the database's own consistency checks find wrong (SQLite's integrity and foreign-key
    /// checks; rows naming blobs the index has no row for); empty when the index is sound.
    func integrityProblems() async throws -> [String]

    /// One page of the latest versions that match `query`.
    func list(_ query: DocumentQuery) async throws -> DocumentPage
    /// Removes the document that `id` is a version of (every version, or only `version`) with its
    /// jobs, so that a running job's outcome is fenced off, in one transaction with its shares: a
    /// share of a removed version is revoked, a share of the latest version moves to the newest
    /// version that remains (revoked when none does). Blobs stay until `gc`.
    func delete(documentID id: String, version: Int?) async throws -> Deletion

    /// Gives the document that `id` is a version of new labels (``Relabelling``); returns version
    /// `id` as it now is, or nil when there is no such document. Throws ``LabelTaken`` when the owner has
    /// another document under the new (type, title).
    func relabel(documentID id: String, to labels: Relabelling) async throws -> Document?

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
