import Foundation
import GRDB
import GRDBSQLite
import PreviewCore
import PreviewDomain

/// The embedded index: SQLite beside the blobs (`index.sqlite`, WAL).
///
/// Thread-safe: GRDB's `DatabasePool` serialises writes and runs reads concurrently.
public final class SQLiteIndex: DocumentIndex {
    /// The database; the job queue shares it so an upload's document and job commit together.
    public let pool: DatabasePool

    /// Opens (creating and migrating when needed) the index at `url`.
    package convenience init(url: URL) throws {
        try self.init(url: url, preparing: { _ in })
    }

    /// Opens the index at `url`; `prepare` runs on each of its connections when it opens, after the
    /// index's own set-up (a test counts the work of its statements this way).
    init(url: URL, preparing prepare: @escaping @Sendable (Database) throws -> Void) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try Self.persistLog(db)
            db.add(function: Self.ownerToken)
            try prepare(db)
        }
        // Opening is serialised across processes by a file lock: switching a new database to WAL
        // fails with "database is locked" when two connections do it at once, and GRDB's migrator
        // reads which migrations ran before it takes SQLite's write lock, so both would create the tables.
        let lock = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Created owner-only before SQLite sees it: SQLite gives its -wal and -shm files the
        // database file's permissions, so titles and owners are not world-readable either.
        let database = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard database >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(database)
        pool = try DatabasePool(path: url.path, configuration: configuration)
        // Checked by a read first: migrating writes, even when there is nothing to do, and a store
        // on a full disk must still open.
        if try !pool.read(Self.migrator.hasCompletedMigrations) { try Self.migrator.migrate(pool) }
    }

    /// `owner_token(owner)`: ``TextSearch/ownerToken(_:)`` for the search index's triggers.
    private static let ownerToken = DatabaseFunction("owner_token", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(TextSearch.ownerToken)
    }

    /// The log and its shared-memory index stay when the last connection closes, so a store on a
    /// full disk can still be opened and read: creating them anew (or GRDB's write to an empty log)
    /// needs room. No journal_size_limit: it would empty the log on close. Read-only connections
    /// cannot set it, nor need to.
    private static func persistLog(_ db: Database) throws {
        guard !db.configuration.readonly else { return }
        var persist: CInt = 1
        let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }

    // MARK: Blobs

    public func integrityProblems() async throws -> [String] {
        try await pool.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            let references = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { row -> String in
                let (table, parent): (String, String) = (row[0], row[2])
                return "a row of \(table) names a missing row of \(parent)"
            }
            return integrity + references
        }
    }
}

extension SQLiteIndex {
    public var dialect: SQLDialect { .sqlite }

    public func runPlan<T: Sendable>(serializing key: String?, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T {
        try await pool.write { db in try db.run(make()) }
    }

    public func readPlan<T: Sendable>(_ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T {
        try await pool.read { db in try db.run(make()) }
    }

    public func readPlan<T: Sendable>(timeout: Duration, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T {
        try await pool.read { db in
            // SQLite asks the handler every thousand steps of its virtual machine; a non-zero answer
            // interrupts the statement.
            let deadline = Unmanaged.passRetained(Deadline(ContinuousClock.now + timeout))
            sqlite3_progress_handler(
                db.sqliteConnection, 1_000,
                { context in
                    guard let context else { return 0 }
                    return ContinuousClock.now > Unmanaged<Deadline>.fromOpaque(context).takeUnretainedValue().instant ? 1 : 0
                }, deadline.toOpaque())
            defer {
                sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
                deadline.release()
            }
            do {
                return try db.run(make())
            } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                throw QueryTimedOut()
            }
        }
    }

    /// When a read must have ended, for SQLite's progress handler.
    private final class Deadline {
        let instant: ContinuousClock.Instant
        init(_ instant: ContinuousClock.Instant) { self.instant = instant }
    }
}
