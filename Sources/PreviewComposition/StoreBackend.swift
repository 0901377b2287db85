import Foundation
import Logging
import PreviewCore
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
    package let downloads: any LinkDownloads
    /// Resumable uploads: their sessions in the index, their parts where every host reaches them
    /// (the store folder's `uploads/`, or the bucket's `staging/uploads/`).
    package let uploads: ResumableUploads

    /// Where the blobs live.
    public enum Blobs: Sendable, Equatable {
        /// `objects/` in the store folder.
        case folder
        /// An object store, with a local cache of copies (`cache/` in the store folder) of up to `cacheBytes`.
        case s3(S3Location, cacheBytes: Int)

        /// `nil` or `folder` for the folder; `s3://…` for an object store.
        package init(_ text: String?, cacheBytes: Int) throws {
            guard let text, !text.isEmpty, text != "folder" else { self = .folder; return }
            self = .s3(try S3Location(text), cacheBytes: cacheBytes)
        }
    }

    /// How long a database statement may take before its connection is given up: a request then
    /// fails as the database's fault (503) instead of waiting on a database that hangs.
    public static let statementTimeout: Duration = .seconds(30)

    /// The same for a command whose statements read or change every row (`verify`, `gc`, `recover`,
    /// `jobs backfill`): `verify`'s recount of the statistics takes over 30 s at 10⁶ documents on
    /// PostgreSQL.
    package static let wholeStoreStatementTimeout: Duration = .seconds(3_600)

    /// Opens the store at `root` with its index and queue in `database` (a `postgres://` address),
    /// or in `root/index.sqlite` when `database` is nil, and its blobs where `blobs` says. With an
    /// object store, the store folder holds writes in progress and the cache, and the reference lock
    /// is PostgreSQL's (shared by every host) or, with the embedded index, a file in the folder.
    /// Blobs' file work runs on `offload`'s reads and writes lanes. A PostgreSQL statement that
    /// takes longer than `statementTimeout` fails (migrations have their own, longer, deadline).
    public init(
        root: URL, database: String?, blobs: Blobs = .folder, offload: Offload,
        statementTimeout: Duration = Self.statementTimeout, logger: Logger
    ) async throws {
        let storage: any BlobStorage
        let staging: any UploadStaging
        switch blobs {
        case .folder:
            storage = try BlobStore(root: root, offload: offload)
            staging = try FolderUploadStaging(root: root, offload: offload)
        case let .s3(location, cacheBytes):
            let lock: any ReferenceLock =
                if let database {
                    try await PostgresReferenceLock(url: database, logger: logger)
                } else {
                    FileReferenceLock(file: root.appendingPathComponent("reference.lock"), offload: offload)
                }
            let s3 = try S3BlobStorage(
                location: location, credentials: try S3Credentials.fromEnvironment(), localFolder: root,
                cacheBytes: cacheBytes, lock: lock, offload: offload, logger: logger)
            try await s3.checkAccess()
            storage = s3
            staging = try S3UploadStaging(storage: s3, root: root, offload: offload)
        }
        if let database {
            // Enough connections that reads never queue behind writes waiting on a lock: a server's
            // reads and upload writes, its renders and a few worker slots. A call beyond them waits,
            // holding no thread.
            let index = try await PostgresIndex(
                connections: try await PostgresConnections(url: database, size: 20, queryTimeout: statementTimeout, logger: logger))
            store = Store(blobs: storage, index: index)
            queue = PostgresJobQueue(index: index)
            downloads = PostgresDownloadQueue(index: index)
            uploads = ResumableUploads(sessions: UploadSessions(database: index), staging: staging)
        } else {
            let index = try SQLiteIndex(url: Store.sqliteIndex(in: root))
            store = Store(blobs: storage, index: index)
            queue = SQLiteJobQueue(index: index)
            downloads = SQLiteDownloadQueue(index: index)
            uploads = ResumableUploads(sessions: UploadSessions(database: index), staging: staging)
        }
    }

    /// The database: `explicit`, else `$DOCPREVIEW_DATABASE`, else nil (the embedded index).
    package static func database(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = explicit ?? environment["DOCPREVIEW_DATABASE"], !value.isEmpty else { return nil }
        return value
    }
}
