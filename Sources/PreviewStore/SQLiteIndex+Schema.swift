import Foundation
import GRDB
import PreviewCore
import PreviewDomain

// Over 300 lines for a reason: the migrator is the schema's history, its migrations in the order
// they run, read top to bottom; split, that order would be scattered over files.

/// The embedded index's schema: documents, blobs, derivatives and jobs in one database, one migrator
/// (``SchemaParityTests`` holds it equal to PostgreSQL's).
extension SQLiteIndex {
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
        migrator.registerMigration("v3-render-failures") { db in
            try db.create(table: "render_failures") { t in
                t.primaryKey("key", .text)
                t.column("source_sha256", .text).notNull()
                t.column("code", .text).notNull()
                t.column("message", .text).notNull()
                t.column("created_at", .datetime).notNull()
            }
            try db.create(index: "render_failures_source", on: "render_failures", columns: ["source_sha256"])
        }
        migrator.registerMigration("v4-preview-budget") { db in
            try db.alter(table: "derivatives") { t in
                t.add(column: "on_demand", .boolean).notNull().defaults(to: false)
                t.add(column: "used_at", .datetime)
            }
            try db.execute(sql: "UPDATE derivatives SET used_at = created_at")
            try db.create(index: "derivatives_lru", on: "derivatives", columns: ["on_demand", "used_at"])
            try db.create(table: "counters") { t in
                t.primaryKey("name", .text)
                t.column("value", .integer).notNull()
            }
        }
        migrator.registerMigration("v5-figures") { db in
            try db.execute(
                sql: """
                    CREATE TABLE figures (scope TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (scope, name));
                    CREATE TABLE blob_users (scope TEXT NOT NULL, sha256 TEXT NOT NULL, refs INTEGER NOT NULL, PRIMARY KEY (scope, sha256));
                    CREATE TABLE blob_previews (sha256 TEXT PRIMARY KEY, previews INTEGER NOT NULL, bytes INTEGER NOT NULL);
                    CREATE TABLE derivative_figures (key TEXT PRIMARY KEY, root TEXT NOT NULL, size INTEGER NOT NULL);
                    CREATE INDEX blob_users_sha256 ON blob_users (sha256);
                    CREATE INDEX derivatives_result ON derivatives (result_sha256);
                    CREATE INDEX documents_created ON documents (created_at, id);
                    """)
            for statement in StoreFigures.backfill { try db.execute(sql: statement) }
            try trigger("figures_document_inserted", "BEFORE INSERT ON documents", StoreFigures.documentInserted(schools: false), in: db)
            try trigger("figures_document_deleted", "BEFORE DELETE ON documents", StoreFigures.documentDeleted(schools: false), in: db)
            try trigger("figures_document_relabelled", "BEFORE UPDATE OF type, title ON documents", StoreFigures.documentRelabelled, in: db)
            try trigger("figures_derivative_inserted", "AFTER INSERT ON derivatives", StoreFigures.derivativeInserted, in: db)
            try trigger("figures_derivative_deleted", "BEFORE DELETE ON derivatives", StoreFigures.derivativeDeleted, in: db)
        }
        // The indexes PostgreSQL had from the start (SchemaParityTests holds the two schemas equal).
        migrator.registerMigration("v6-parity") { db in
            try db.create(index: "documents_owner", on: "documents", columns: ["owner", "created_at"])
            try db.create(index: "jobs_status", on: "jobs", columns: ["status"])
        }
        migrator.registerMigration("v7-job-status") { db in
            try db.alter(table: "documents") { t in t.add(column: "job_status", .text) }
            try db.execute(sql: JobLifecycle.backfill)
            try trigger("documents_job_inserted", "AFTER INSERT ON jobs", JobLifecycle.jobChangedBeforeKinds, in: db)
            try trigger("documents_job_changed", "AFTER UPDATE OF status ON jobs", JobLifecycle.jobChangedBeforeKinds, in: db)
        }
        migrator.registerMigration("v8-title-key") { db in
            try db.alter(table: "documents") { t in t.add(column: "title_key", .text).notNull().defaults(to: "") }
            for row in try Row.fetchAll(db, sql: "SELECT id, title FROM documents") {
                try db.execute(sql: "UPDATE documents SET title_key = ? WHERE id = ?", arguments: [DocumentLabels.titleKey(row["title"]), row["id"]])
            }
        }
        migrator.registerMigration("v9-playback") { db in
            try db.alter(table: "documents") { t in t.add(column: "playback", .text) }
            try db.alter(table: "jobs") { t in t.add(column: "kind", .text).notNull().defaults(to: JobRecord.Kind.preview.rawValue) }
            try db.execute(sql: "DROP TRIGGER documents_job_inserted; DROP TRIGGER documents_job_changed")
            try trigger("documents_job_inserted", "AFTER INSERT ON jobs", JobLifecycle.jobChanged, in: db)
            try trigger("documents_job_changed", "AFTER UPDATE OF status ON jobs", JobLifecycle.jobChanged, in: db)
        }
        migrator.registerMigration("v10-job-progress") { db in
            try db.alter(table: "jobs") { t in t.add(column: "progress", .double) }
        }
        migrator.registerMigration("v11-shares") { db in
            try db.execute(
                sql: """
                    CREATE TABLE shares (id TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE, document_id TEXT NOT NULL, version INTEGER,
                        label TEXT NOT NULL, password_hash TEXT, allow_download BOOLEAN NOT NULL, created_at DATETIME NOT NULL,
                        expires_at DATETIME, revoked_at DATETIME, opened_count INTEGER NOT NULL DEFAULT 0, last_opened_at DATETIME,
                        download_count INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX shares_document ON shares (document_id);
                    """)
        }
        migrator.registerMigration("v12-share-visits") { db in
            try db.execute(
                sql: """
                    CREATE TABLE share_visits (id INTEGER PRIMARY KEY AUTOINCREMENT, share_id TEXT NOT NULL, kind TEXT NOT NULL, at DATETIME NOT \
                    NULL);
                    CREATE INDEX share_visits_share ON share_visits (share_id, id);
                    """)
        }
        migrator.registerMigration("v13-downloads") { db in
            try db.execute(
                sql: """
                    CREATE TABLE downloads (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, client_id TEXT NOT NULL, device TEXT,
                        owner TEXT NOT NULL, url TEXT NOT NULL, normalized_url TEXT NOT NULL, route TEXT NOT NULL, status TEXT NOT NULL,
                        attempts INTEGER NOT NULL, available_at DATETIME NOT NULL, lease_owner TEXT, lease_expires_at DATETIME, document_id TEXT,
                        error_code TEXT, error_message TEXT, client_timestamp TEXT, created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL);
                    CREATE UNIQUE INDEX downloads_id ON downloads (id);
                    CREATE UNIQUE INDEX downloads_link ON downloads (client_id, normalized_url);
                    CREATE INDEX downloads_client ON downloads (client_id, seq);
                    CREATE INDEX downloads_due ON downloads (status, available_at);
                    CREATE INDEX downloads_document ON downloads (document_id);
                    CREATE TABLE devices (name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL, owner TEXT NOT NULL, created_at DATETIME NOT NULL,
                        revoked_at DATETIME);
                    CREATE UNIQUE INDEX devices_token ON devices (token_sha256);
                    """)
        }
        migrator.registerMigration("v14-downloads-per-device") { db in
            try db.execute(
                sql: """
                    DROP INDEX downloads_link;
                    CREATE UNIQUE INDEX downloads_link ON downloads (ifnull(device, ''), client_id, normalized_url);
                    """)
        }
        migrator.registerMigration("v15-kept-at-scale") { db in
            try db.execute(
                sql: """
                    ALTER TABLE documents ADD COLUMN latest BOOLEAN NOT NULL DEFAULT 0;
                    ALTER TABLE documents ADD COLUMN live_shares INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE shares ADD COLUMN lapsed BOOLEAN NOT NULL DEFAULT 0;
                    """)
            for statement in CurrentDocuments.backfill(now: now) { try db.execute(sql: statement) }
            try trigger("current_version_inserted", "AFTER INSERT ON documents", CurrentDocuments.versionInserted, in: db)
            try trigger("current_version_deleted", "AFTER DELETE ON documents", CurrentDocuments.versionDeleted, in: db)
            try trigger("current_version_changed", "AFTER UPDATE OF latest, live_shares ON documents", CurrentDocuments.versionChanged, in: db)
            try trigger("current_share_inserted", "AFTER INSERT ON shares", CurrentDocuments.shareInserted, in: db)
            try trigger("current_share_changed", "AFTER UPDATE OF revoked_at, lapsed, document_id ON shares", CurrentDocuments.shareChanged, in: db)
            try trigger("current_share_deleted", "AFTER DELETE ON shares", CurrentDocuments.shareDeleted, in: db)
            for statement in CurrentDocuments.indexStatements() { try db.execute(sql: statement) }
            for table in ["jobs", "downloads"] { try db.execute(sql: StatusCounts.backfill(table)) }
            for (name, event, statements) in StatusCounts.triggers { try trigger(name, event, statements, in: db) }
        }
        migrator.registerMigration("v16-title-search") { db in
            try trigramIndex("document_titles", of: "title_key", triggers: "title", in: db)
            // The status counters take their row locks in one order (``StatusCounts``).
            for (name, event, statements) in StatusCounts.triggers {
                try db.execute(sql: "DROP TRIGGER \(name)")
                try trigger(name, event, statements, in: db)
            }
        }
        migrator.registerMigration("v17-description-school") { db in
            try db.execute(
                sql: """
                    ALTER TABLE documents ADD COLUMN description TEXT NOT NULL DEFAULT '';
                    ALTER TABLE documents ADD COLUMN school TEXT;
                    ALTER TABLE documents ADD COLUMN search_key TEXT NOT NULL DEFAULT '';
                    ALTER TABLE shares ADD COLUMN school TEXT;
                    DROP TRIGGER title_inserted;
                    DROP TRIGGER title_deleted;
                    DROP TRIGGER title_changed;
                    DROP TABLE document_titles;
                    """)
            // The search keys are folded in Swift (``DocumentLabels/searchKey(title:description:filename:)``).
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, title, filename FROM documents")
            while let row = try rows.next() {
                try db.execute(
                    sql: "UPDATE documents SET search_key = ? WHERE rowid = ?",
                    arguments: [DocumentLabels.searchKey(title: row["title"], description: "", filename: row["filename"]), row["rowid"] as Int64])
            }
            try trigramIndex("document_search", of: "search_key", triggers: "search", in: db)
            for statement in CurrentDocuments.schoolIndexStatements() { try db.execute(sql: statement) }
            // The figures count current documents per school (``StoreFigures``); no school existed before.
            try db.execute(sql: "DROP TRIGGER figures_document_inserted; DROP TRIGGER figures_document_deleted")
            try trigger("figures_document_inserted", "BEFORE INSERT ON documents", StoreFigures.documentInserted(), in: db)
            try trigger("figures_document_deleted", "BEFORE DELETE ON documents", StoreFigures.documentDeleted(), in: db)
            try trigger("figures_document_school_changed", "BEFORE UPDATE OF school ON documents", StoreFigures.documentSchoolChanged, in: db)
        }
        migrator.registerMigration("v18-search-school") { db in
            // A text search finds a document by its school too: the keys of those with one, folded again.
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, title, description, filename, school FROM documents WHERE school IS NOT NULL")
            while let row = try rows.next() {
                let key = DocumentLabels.searchKey(
                    title: row["title"], description: row["description"], filename: row["filename"], school: row["school"])
                try db.execute(sql: "UPDATE documents SET search_key = ? WHERE rowid = ?", arguments: [key, row["rowid"] as Int64])
            }
        }
        migrator.registerMigration("v19-uploads") { db in
            try db.execute(
                sql: """
                    CREATE TABLE upload_sessions (id TEXT PRIMARY KEY, owner TEXT NOT NULL, client TEXT NOT NULL, front TEXT NOT NULL,
                        labels TEXT NOT NULL, length INTEGER, received INTEGER NOT NULL, status TEXT NOT NULL,
                        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, document_id TEXT, job_id INTEGER, sha256 TEXT,
                        appender TEXT, appending_until INTEGER);
                    CREATE INDEX upload_sessions_owner ON upload_sessions (owner, status);
                    CREATE INDEX upload_sessions_client ON upload_sessions (client, status);
                    CREATE INDEX upload_sessions_expiry ON upload_sessions (expires_at);
                    CREATE TABLE upload_parts (session_id TEXT NOT NULL, start INTEGER NOT NULL, length INTEGER NOT NULL, name TEXT NOT NULL,
                        PRIMARY KEY (session_id, start));
                    """)
        }
        migrator.registerMigration("v20-page-texts") { db in
            try db.execute(sql: PageTexts.sqliteTable)
        }
        migrator.registerMigration("v21-share-highlight") { db in
            try db.execute(sql: "ALTER TABLE shares ADD COLUMN highlight TEXT")
        }
        migrator.registerMigration("v22-page-search") { db in
            // The pages' table again, its rowid a column, with each page's search text (folded in
            // Swift from its words), held by trigram in `page_search` (``PageSearch``).
            try db.execute(sql: "ALTER TABLE page_texts RENAME TO page_texts_before_search")
            try db.execute(sql: PageTexts.sqliteTable)
            try db.execute(
                sql: """
                    INSERT INTO page_texts (derivative, page, width, height, text, words, truncated)
                    SELECT derivative, page, width, height, text, words, truncated FROM page_texts_before_search;
                    DROP TABLE page_texts_before_search;
                    """)
            let rows = try Row.fetchCursor(db, sql: "SELECT id, words FROM page_texts")
            while let row = try rows.next() {
                let words = try PageTexts.words(stored: row["words"])
                try db.execute(
                    sql: "UPDATE page_texts SET search_text = ?, words = ? WHERE id = ?",
                    arguments: [TextHits.searchText(of: words), PageTexts.storedWords(words), row["id"] as Int64])
            }
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE page_search USING fts5(search_text, content = 'page_texts', content_rowid = 'id', tokenize = 'trigram');
                    INSERT INTO page_search (page_search) VALUES ('rebuild');
                    """)
            try trigger(
                "page_search_inserted", "AFTER INSERT ON page_texts",
                ["INSERT INTO page_search (rowid, search_text) VALUES (NEW.id, NEW.search_text)"], in: db)
            try trigger(
                "page_search_deleted", "AFTER DELETE ON page_texts",
                ["INSERT INTO page_search (page_search, rowid, search_text) VALUES ('delete', OLD.id, OLD.search_text)"], in: db)
        }
        migrator.registerMigration("v23-search-in-creation-order") { db in
            // The search index's rowids follow the creation order (``TextSearch/readInOrder``): each
            // version's `search_order`, its second of creation shifted by ``TextSearch/orderBits``,
            // then its place among that second's versions. Its owner is indexed too, as one trigram
            // (``TextSearch/ownerToken(_:)``, the connection's `owner_token`), so that an owner's
            // matches are read alone. A version's owner never changes.
            let second = TextSearch.creationSecond("created_at").rendered(in: .sqlite).text
            try db.execute(
                sql: """
                    DROP TRIGGER search_inserted;
                    DROP TRIGGER search_deleted;
                    DROP TRIGGER search_changed;
                    DROP TABLE document_search;
                    ALTER TABLE documents ADD COLUMN search_order INTEGER;
                    ALTER TABLE documents ADD COLUMN owner_key TEXT;
                    UPDATE documents SET search_order = placed.search_order, owner_key = owner_token(owner)
                    FROM (SELECT rowid AS version, (\(second) << \(TextSearch.orderBits)) + row_number() OVER (PARTITION BY \(second) ORDER BY \
                    created_at, id) - 1
                                 AS search_order FROM documents) AS placed
                    WHERE documents.rowid = placed.version;
                    CREATE UNIQUE INDEX documents_search_order ON documents (search_order);
                    CREATE VIRTUAL TABLE document_search USING fts5(owner_key, search_key, content = 'documents', content_rowid = 'search_order',
                                                                    tokenize = 'trigram');
                    INSERT INTO document_search (document_search) VALUES ('rebuild');
                    """)
            // A new version comes after those of its second (found by the unique index), then into the search index.
            let newSecond = "(\(TextSearch.creationSecond("NEW.created_at").rendered(in: .sqlite).text) << \(TextSearch.orderBits))"
            try trigger(
                "search_inserted", "AFTER INSERT ON documents",
                [
                    """
                    UPDATE documents SET owner_key = owner_token(NEW.owner),
                        search_order = (SELECT coalesce(max(search_order) + 1, \(newSecond)) FROM documents
                                        WHERE search_order >= \(newSecond) AND search_order < \(newSecond) + (1 << \(TextSearch.orderBits)))
                    WHERE rowid = NEW.rowid
                    """,
                    """
                    INSERT INTO document_search (rowid, owner_key, search_key) SELECT search_order, owner_key, search_key FROM documents
                    WHERE rowid = NEW.rowid
                    """
                ], in: db)
            let indexed = "INSERT INTO document_search (rowid, owner_key, search_key) VALUES (NEW.search_order, NEW.owner_key, NEW.search_key)"
            let unindexed = """
                INSERT INTO document_search (document_search, rowid, owner_key, search_key) VALUES ('delete', OLD.search_order, OLD.owner_key, \
                OLD.search_key)
                """
            try trigger("search_deleted", "AFTER DELETE ON documents", [unindexed], in: db)
            try trigger("search_changed", "AFTER UPDATE OF search_key ON documents", [unindexed, indexed], in: db)
        }
        migrator.registerMigration("v24-share-link") { db in
            try db.execute(sql: "ALTER TABLE shares ADD COLUMN link_token TEXT")
        }
        migrator.registerMigration("v25-poster") { db in
            try db.alter(table: "documents") { t in
                t.add(column: "frame_s", .double)
                t.add(column: "poster_score", .double)
            }
        }
        migrator.registerMigration("v26-poster-play") { db in
            try db.execute(sql: "ALTER TABLE documents ADD COLUMN poster_play INTEGER")
        }
        migrator.registerMigration("v27-share-views") { db in
            try db.execute(
                sql: """
                    CREATE TABLE share_views (share_id TEXT NOT NULL, view_id TEXT NOT NULL, visitor TEXT NOT NULL, started_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL, pages TEXT NOT NULL, played TEXT NOT NULL, duration REAL, PRIMARY KEY (share_id, view_id));
                    CREATE INDEX share_views_share ON share_views (share_id, started_at);
                    CREATE INDEX share_views_visitor ON share_views (share_id, visitor, updated_at);
                    CREATE TABLE share_readings (share_id TEXT PRIMARY KEY, visits INTEGER NOT NULL, last_visit_at DATETIME, pages TEXT NOT NULL,
                        played TEXT NOT NULL, duration REAL);
                    """)
        }
        migrator.registerMigration("v28-owner-events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE owner_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, owner TEXT NOT NULL,
                        document_id TEXT NOT NULL, share_id TEXT NOT NULL, school TEXT, label TEXT NOT NULL, at DATETIME NOT NULL);
                    CREATE INDEX owner_events_owner ON owner_events (owner, seq);
                    CREATE TABLE webhook_cursors (target TEXT PRIMARY KEY, delivered_through INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("v29-share-watermark") { db in
            try db.execute(sql: "ALTER TABLE shares ADD COLUMN watermark TEXT")
        }
        migrator.registerMigration("v30-share-redaction") { db in
            try db.execute(sql: "ALTER TABLE shares ADD COLUMN redaction TEXT")
        }
        migrator.registerMigration("v31-share-view-actions") { db in
            for table in ["share_views", "share_readings"] {
                for column in ["zooms", "downloads"] {
                    try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) INTEGER NOT NULL DEFAULT 0")
                }
            }
        }
        migrator.registerMigration("v32-link-cards") { db in
            try db.execute(
                sql: """
                    CREATE TABLE link_cards (url TEXT PRIMARY KEY, card TEXT, picture_sha256 TEXT, picture_error_code TEXT,
                        picture_error_message TEXT, error_code TEXT, error_message TEXT, fetched_at DATETIME NOT NULL);
                    CREATE INDEX link_cards_picture ON link_cards (picture_sha256) WHERE picture_sha256 IS NOT NULL;
                    """)
        }
        return migrator
    }

    /// The time as GRDB stores dates, for the SQL both dialects share.
    static let now = SQLDialect.sqlite.currentTime

    /// An FTS5 `trigram` table `table` over `documents`' `column` (every version; the rows are
    /// `documents`' own, by rowid), built from the rows and kept by triggers `<triggers>_inserted`,
    /// `_deleted` and `_changed`.
    private static func trigramIndex(_ table: String, of column: String, triggers: String, in db: Database) throws {
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE \(table) USING fts5(\(column), content = 'documents', content_rowid = 'rowid', tokenize = 'trigram');
                INSERT INTO \(table) (\(table)) VALUES ('rebuild');
                """)
        let (indexed, unindexed) = (
            "INSERT INTO \(table) (rowid, \(column)) VALUES (NEW.rowid, NEW.\(column))",
            "INSERT INTO \(table) (\(table), rowid, \(column)) VALUES ('delete', OLD.rowid, OLD.\(column))"
        )
        try trigger("\(triggers)_inserted", "AFTER INSERT ON documents", [indexed], in: db)
        try trigger("\(triggers)_deleted", "AFTER DELETE ON documents", [unindexed], in: db)
        try trigger("\(triggers)_changed", "AFTER UPDATE OF \(column) ON documents", [unindexed, indexed], in: db)
    }

    /// A row trigger running the shared `statements`.
    private static func trigger(_ name: String, _ event: String, _ statements: [String], in db: Database) throws {
        try db.execute(sql: "CREATE TRIGGER \(name) \(event) FOR EACH ROW BEGIN \(statements.joined(separator: ";\n")); END")
    }
}
