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
