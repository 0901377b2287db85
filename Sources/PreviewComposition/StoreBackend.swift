import Foundation
import Logging
import PreviewDocuments
import PreviewPostgres
import PreviewS3
import PreviewStore

/// A store, its job queue and its downloads: the embedded SQLite index in the store folder, or PostgreSQL when a
/// `postgres://` database is given (DESIGN §11); the blobs in the store folder, or in an S3 bucket.
public struct StoreBackend: Sendable {
    public let store: Store
    public let queue: any JobQueue
    /// Shared links to download, and the devices that may send them.
    public let downloads: any LinkDownloads

    /// Where the blobs live.
    public enum Blobs: Sendable, Equatable {
        /// `objects/` in the store folder.
        case folder
        /// An object store, with a local cache of copies (`cache/` in the store folder) of up to `cacheBytes`.
        case s3(S3Location, cacheBytes: Int)

        /// `nil` or `folder` for the folder; `s3://…` for an object store.
        public init(_ text: String?, cacheBytes: Int) throws {
            guard let text, !text.isEmpty, text != "folder" else { self = .folder; return }
            self = .s3(try S3Location(text), cacheBytes: cacheBytes)
        }
    }

    /// Opens the store at `root` with its index and queue in `database` (a `postgres://` address),
    /// or in `root/index.sqlite` when `database` is nil, and its blobs where `blobs` says. With an
    /// object store, the store folder holds writes in progress and the cache, and the reference lock
    /// is PostgreSQL's (shared by every host) or, with the embedded index, a file in the folder.
    public init(root: URL, database: String?, blobs: Blobs = .folder, logger: Logger) throws {
        let storage: any BlobStorage
        switch blobs {
        case .folder:
            storage = try BlobStore(root: root)
        case let .s3(location, cacheBytes):
            let lock: any ReferenceLock = try database.map { try PostgresReferenceLock(url: $0, logger: logger) }
                ?? FileReferenceLock(file: root.appendingPathComponent("reference.lock"))
            let s3 = try S3BlobStorage(location: location, credentials: try S3Credentials.fromEnvironment(), localFolder: root,
                                       cacheBytes: cacheBytes, lock: lock, logger: logger)
            try s3.checkAccess()
            storage = s3
        }
        if let database {
            // Enough connections that reads never queue behind writes waiting on a lock: a server's
            // reads (4) and upload writes (4), its renders (8) and a few worker slots.
            let index = try PostgresIndex(connections: try PostgresConnections(url: database, size: 20, logger: logger))
            store = Store(blobs: storage, index: index)
            queue = PostgresJobQueue(index: index)
            downloads = PostgresDownloadQueue(index: index)
        } else {
            let index = try SQLiteIndex(url: Store.sqliteIndex(in: root))
            store = Store(blobs: storage, index: index)
            queue = SQLiteJobQueue(index: index)
            downloads = SQLiteDownloadQueue(index: index)
        }
    }

    /// The database: `explicit`, else `$DOCPREVIEW_DATABASE`, else nil (the embedded index).
    public static func database(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = explicit ?? environment["DOCPREVIEW_DATABASE"], !value.isEmpty else { return nil }
        return value
    }
}
