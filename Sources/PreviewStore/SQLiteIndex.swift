import Foundation
import GRDB
import PreviewCore

/// The embedded index: SQLite beside the blobs (`index.sqlite`, WAL).
///
/// Thread-safe: GRDB's `DatabasePool` serialises writes and runs reads concurrently.
public final class SQLiteIndex: DocumentIndex {
    /// The database; the job queue shares it so an upload's document and job commit together.
    public let pool: DatabasePool

    /// Opens (creating and migrating when needed) the index at `url`.
    public init(url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in db.add(function: SQLiteIndex.fold) }
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
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "blobs") { t in
                t.primaryKey("sha256", .text)
                t.column("size", .integer).notNull()
                t.column("mime", .text).notNull()
                t.column("created_at", .datetime).notNull()
            }
            try db.create(table: "documents") { t in
                t.primaryKey("id", .text)
                t.column("owner", .text).notNull()
                t.column("type", .text).notNull()
                t.column("title", .text).notNull()
                t.column("filename", .text).notNull()
                t.column("sha256", .text).notNull().references("blobs")
                t.column("kind", .text).notNull()
                t.column("mime", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("pages", .integer)
                t.column("duration_s", .double)
                t.column("width", .integer)
                t.column("height", .integer)
                t.column("codec", .text)
                t.column("rotation", .integer)
                t.column("version", .integer).notNull()
                t.column("preview_status", .text).notNull()
                t.column("error_code", .text)
                t.column("error_message", .text)
                t.column("created_at", .datetime).notNull()
                t.uniqueKey(["owner", "type", "title", "version"])
            }
            try db.create(index: "documents_sha256", on: "documents", columns: ["sha256"])
            try db.create(table: "derivatives") { t in
                t.primaryKey("key", .text)
                t.column("source_sha256", .text).notNull().references("blobs")
                t.column("operation", .text).notNull()
                t.column("parameters", .text).notNull()
                t.column("renderer", .text).notNull()
                t.column("result_sha256", .text).notNull().references("blobs")
                t.column("width", .integer).notNull()
                t.column("height", .integer).notNull()
                t.column("created_at", .datetime).notNull()
            }
            try db.create(index: "derivatives_source", on: "derivatives", columns: ["source_sha256"])
        }
        migrator.registerMigration("v2-jobs") { db in
            try db.create(table: "jobs") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("document_id", .text).notNull().references("documents")
                t.column("status", .text).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("available_at", .datetime).notNull()
                t.column("lease_owner", .text)
                t.column("lease_expires_at", .datetime)
                t.column("error_code", .text)
                t.column("error_message", .text)
                t.column("created_at", .datetime).notNull()
                t.column("updated_at", .datetime).notNull()
            }
            try db.create(index: "jobs_ready", on: "jobs", columns: ["status", "available_at"])
            try db.create(index: "jobs_document", on: "jobs", columns: ["document_id"])
        }
        return migrator
    }

    // MARK: Blobs

    /// `live`: the originals of documents and what is derived from them, transitively (an office
    /// document's PDF pivot, then its pages). Derivatives of anything else belong to deleted documents.
    static let live = """
        WITH RECURSIVE live(sha256) AS (SELECT sha256 FROM documents
            UNION SELECT v.result_sha256 FROM derivatives v JOIN live l ON v.source_sha256 = l.sha256)
        """

    public func referencedBlobs() throws -> Set<BlobHash> {
        try pool.read { db in
            let rows = try String.fetchAll(db, sql: "\(Self.live) SELECT sha256 FROM live")
            return Set(rows.compactMap(BlobHash.init(hex:)))
        }
    }

    public func forgetUnusedBlobs() throws -> [BlobHash] {
        try pool.write { db in
            try db.execute(sql: "\(Self.live) DELETE FROM derivatives WHERE source_sha256 NOT IN (SELECT sha256 FROM live)")
            let unused = try String.fetchAll(db, sql: """
                SELECT sha256 FROM blobs WHERE sha256 NOT IN (SELECT sha256 FROM documents)
                AND sha256 NOT IN (SELECT source_sha256 FROM derivatives) AND sha256 NOT IN (SELECT result_sha256 FROM derivatives)
                """)
            try db.execute(sql: "DELETE FROM blobs WHERE sha256 IN (SELECT value FROM json_each(?))",
                           arguments: [String(decoding: try JSONEncoder().encode(unused), as: UTF8.self)])
            return unused.compactMap(BlobHash.init(hex:))
        }
    }

    // MARK: Documents

    public func insertVersion(_ document: DocumentRecord) throws -> (document: DocumentRecord, inserted: Bool) {
        try pool.write { db in try Self.insertVersion(document, in: db) }
    }

    /// ``insertVersion(_:)`` inside a caller's transaction.
    public static func insertVersion(_ document: DocumentRecord, in db: Database) throws -> (document: DocumentRecord, inserted: Bool) {
        try BlobRecord(sha256: document.sha256, size: document.size, mime: document.mime, createdAt: Date())
            .insert(db, onConflict: .ignore)
        let latest = try versions(owner: document.owner, type: document.type, title: document.title).fetchOne(db)
        if let latest, latest.sha256 == document.sha256 { return (latest, false) }
        var next = document
        next.version = (latest?.version ?? 0) + 1
        try next.insert(db)
        return (next, true)
    }

    public func setFacts(documentID: String, facts: MediaFacts) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE documents SET pages = ?, duration_s = ?, width = ?, height = ?, codec = ?, rotation = ? WHERE id = ?",
                           arguments: [facts.pages, facts.durationSeconds, facts.width, facts.height, facts.codec, facts.rotation, documentID])
        }
    }

    public func latestVersion(owner: String, type: String, title: String) throws -> DocumentRecord? {
        try pool.read { db in try Self.versions(owner: owner, type: type, title: title).fetchOne(db) }
    }

    /// Versions of (owner, type, title), newest first.
    private static func versions(owner: String, type: String, title: String) -> QueryInterfaceRequest<DocumentRecord> {
        DocumentRecord
            .filter(DocumentRecord.CodingKeys.owner == owner && DocumentRecord.CodingKeys.type == type
                    && DocumentRecord.CodingKeys.title == title)
            .order(DocumentRecord.CodingKeys.version.desc)
    }

    public func setPreviewStatus(documentID: String, status: PreviewStatus, error: PreviewError?) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE documents SET preview_status = ?, error_code = ?, error_message = ? WHERE id = ?",
                           arguments: [status.rawValue, error?.code.rawValue, error?.message, documentID])
        }
    }

    public func document(id: String) throws -> DocumentRecord? {
        try pool.read { db in try DocumentRecord.fetchOne(db, key: id) }
    }

    public func latestDocument(sha256: BlobHash) throws -> DocumentRecord? {
        try pool.read { db in
            try DocumentRecord.filter(DocumentRecord.CodingKeys.sha256 == sha256.hex)
                .order(DocumentRecord.CodingKeys.createdAt.desc).fetchOne(db)
        }
    }

    // MARK: Derivatives

    public func derivative(key: String) throws -> DerivativeRecord? {
        try pool.read { db in try DerivativeRecord.fetchOne(db, key: key) }
    }

    public func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) throws {
        try pool.write { db in
            try BlobRecord(sha256: derivative.resultSha256, size: resultSize, mime: resultMime, createdAt: Date())
                .insert(db, onConflict: .ignore)
            try derivative.insert(db, onConflict: .ignore)
        }
    }

    // MARK: Statistics

    public func statistics(owner: String?) throws -> StorageStatistics {
        try pool.read { db in
            let scope = owner == nil ? "1 = 1" : "owner = :owner"
            let arguments: StatementArguments = owner.map { ["owner": $0] } ?? [:]
            let current = """
                SELECT d.* FROM documents d WHERE \(scope) AND version = (SELECT MAX(version) FROM documents x
                WHERE x.owner = d.owner AND x.type = d.type AND x.title = d.title)
                """
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
            func grouped(_ column: String) throws -> [String: Int] {
                let rows = try Row.fetchAll(db, sql: "SELECT \(column) AS name, COUNT(*) AS n FROM (\(current)) GROUP BY \(column)",
                                            arguments: arguments)
                return Dictionary(uniqueKeysWithValues: rows.map { row in
                    let name: String = row["name"]
                    return (name.isEmpty ? "unspecified" : name, row["n"] as Int)
                })
            }
            // Previews of the originals, and of office documents' PDF pivots (pages are rendered from those).
            let originals = "SELECT sha256 FROM documents WHERE \(scope)"
            let derivatives = """
                SELECT DISTINCT v.result_sha256 FROM derivatives v WHERE v.source_sha256 IN (\(originals))
                OR v.source_sha256 IN (SELECT p.result_sha256 FROM derivatives p WHERE p.operation = 'convert' AND p.source_sha256 IN (\(originals)))
                """
            return StorageStatistics(
                owner: owner,
                documents: try count("SELECT COUNT(*) FROM (\(current))"),
                versions: try count("SELECT COUNT(*) FROM documents WHERE \(scope)"),
                byType: try grouped("type"),
                byKind: try grouped("kind"),
                logicalBytes: try count("SELECT COALESCE(SUM(size), 0) FROM documents WHERE \(scope)"),
                storedBytes: try count("""
                    SELECT COALESCE(SUM(size), 0) FROM blobs WHERE sha256 IN (SELECT sha256 FROM documents WHERE \(scope))
                    """),
                previews: try count("SELECT COUNT(*) FROM (\(derivatives))"),
                previewBytes: try count("SELECT COALESCE(SUM(size), 0) FROM blobs WHERE sha256 IN (\(derivatives))")
            )
        }
    }
}
