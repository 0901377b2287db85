import Foundation
import Logging
import PreviewPostgres
import PreviewStore

/// A store and its queue: the embedded SQLite index in the store folder, or PostgreSQL when a
/// `postgres://` database is given (DESIGN §11). Either way the blobs are the folder's.
public struct StoreBackend: Sendable {
    public let store: Store
    public let queue: any JobQueue

    /// Opens the store at `root` with its index and queue in `database` (a `postgres://` address),
    /// or in `root/index.sqlite` when `database` is nil.
    public init(root: URL, database: String?, logger: Logger) throws {
        let blobs = try BlobStore(root: root)
        if let database {
            // Enough connections that reads never queue behind writes waiting on a lock: a server's
            // reads (4) and upload writes (4), its renders (8) and a few worker slots.
            let index = try PostgresIndex(connections: try PostgresConnections(url: database, size: 20, logger: logger))
            store = Store(blobs: blobs, index: index)
            queue = PostgresJobQueue(index: index)
        } else {
            let index = try SQLiteIndex(url: Store.sqliteIndex(in: root))
            store = Store(blobs: blobs, index: index)
            queue = SQLiteJobQueue(index: index)
        }
    }

    /// The database: `explicit`, else `$DOCPREVIEW_DATABASE`, else nil (the embedded index).
    public static func database(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = explicit ?? environment["DOCPREVIEW_DATABASE"], !value.isEmpty else { return nil }
        return value
    }
}
