import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

// Over 300 lines for a reason: the migrations are the schema's history, in the order they run, read
// top to bottom beside SQLiteIndex+Schema's; split, that order would be scattered over files.

/// The PostgreSQL schema: the SQLite index's tables (`SQLiteIndex.migrator`) with PostgreSQL
/// types. Migrations are applied in order, each in its own transaction, under an advisory lock
/// so that hosts starting together apply each one once; `schema_migrations` records them.
enum PostgresSchema {
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1",
            [
                """
                CREATE TABLE blobs (sha256 text PRIMARY KEY, size bigint NOT NULL, mime text NOT NULL,
                                    created_at timestamptz NOT NULL)
                """,
                """
                CREATE TABLE documents (
                    id text PRIMARY KEY, owner text NOT NULL, type text NOT NULL, title text NOT NULL, filename text NOT NULL,
                    sha256 text NOT NULL REFERENCES blobs, kind text NOT NULL, mime text NOT NULL, size bigint NOT NULL,
                    pages bigint, duration_s double precision, width bigint, height bigint, codec text, rotation bigint,
                    version bigint NOT NULL, preview_status text NOT NULL, error_code text, error_message text,
                    created_at timestamptz NOT NULL, UNIQUE (owner, type, title, version))
                """,
                "CREATE INDEX documents_sha256 ON documents (sha256)",
                "CREATE INDEX documents_owner ON documents (owner, created_at)",
                """
                CREATE TABLE derivatives (
                    key text PRIMARY KEY, source_sha256 text NOT NULL REFERENCES blobs, operation text NOT NULL,
                    parameters text NOT NULL, renderer text NOT NULL, result_sha256 text NOT NULL REFERENCES blobs,
                    width bigint NOT NULL, height bigint NOT NULL, created_at timestamptz NOT NULL)
                """,
                "CREATE INDEX derivatives_source ON derivatives (source_sha256)"
            ]
        ),
        (
            "v2-jobs",
            [
                """
                CREATE TABLE jobs (
                    id bigserial PRIMARY KEY, document_id text NOT NULL REFERENCES documents, status text NOT NULL,
                    attempts bigint NOT NULL DEFAULT 0, available_at timestamptz NOT NULL, lease_owner text,
                    lease_expires_at timestamptz, error_code text, error_message text,
                    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)
                """,
                // Only unfinished jobs are looked at when leasing; done ones stay out of the index.
                "CREATE INDEX jobs_ready ON jobs (available_at, id) WHERE status IN ('queued', 'processing')",
                "CREATE INDEX jobs_document ON jobs (document_id, id)",
                "CREATE INDEX jobs_status ON jobs (status)"
            ]
        ),
        (
            "v3-render-failures",
            [
                """
                CREATE TABLE render_failures (key text PRIMARY KEY, source_sha256 text NOT NULL, code text NOT NULL,
                                              message text NOT NULL, created_at timestamptz NOT NULL)
                """,
                "CREATE INDEX render_failures_source ON render_failures (source_sha256)"
            ]
        ),
        (
            "v4-preview-budget",
            [
                "ALTER TABLE derivatives ADD COLUMN on_demand boolean NOT NULL DEFAULT false",
                "ALTER TABLE derivatives ADD COLUMN used_at timestamptz",
                "UPDATE derivatives SET used_at = created_at",
                "CREATE INDEX derivatives_lru ON derivatives (used_at) WHERE on_demand",
                "CREATE TABLE counters (name text PRIMARY KEY, value bigint NOT NULL)"
            ]
        ),
        (
            "v5-figures",
            [
                "CREATE TABLE figures (scope text NOT NULL, name text NOT NULL, value bigint NOT NULL, PRIMARY KEY (scope, name))",
                "CREATE TABLE blob_users (scope text NOT NULL, sha256 text NOT NULL, refs bigint NOT NULL, PRIMARY KEY (scope, sha256))",
                "CREATE TABLE blob_previews (sha256 text PRIMARY KEY, previews bigint NOT NULL, bytes bigint NOT NULL)",
                "CREATE TABLE derivative_figures (key text PRIMARY KEY, root text NOT NULL, size bigint NOT NULL)",
                "CREATE INDEX blob_users_sha256 ON blob_users (sha256)",
                "CREATE INDEX derivatives_result ON derivatives (result_sha256)",
                "CREATE INDEX documents_created ON documents (created_at, id)"
            ] + StoreFigures.backfill
                + trigger("figures_document_inserted", "BEFORE INSERT ON documents", StoreFigures.documentInserted(schools: false), returning: "NEW")
                + trigger("figures_document_deleted", "BEFORE DELETE ON documents", StoreFigures.documentDeleted(schools: false), returning: "OLD")
                + trigger(
                    "figures_document_relabelled", "BEFORE UPDATE OF type, title ON documents", StoreFigures.documentRelabelled,
                    returning: "NEW")
                + trigger("figures_derivative_inserted", "AFTER INSERT ON derivatives", StoreFigures.derivativeInserted, returning: "NULL")
                + trigger("figures_derivative_deleted", "BEFORE DELETE ON derivatives", StoreFigures.derivativeDeleted, returning: "OLD")
        ),
        (
            "v7-job-status",
            [
                "ALTER TABLE documents ADD COLUMN job_status text",
                // Room on each page for a row's next version: a job's state changes its document's row
                // three times, and an update that fits on its page leaves the six indexes alone (HOT).
                "ALTER TABLE documents SET (fillfactor = 70)",
                JobLifecycle.backfill
            ] + trigger("documents_job_inserted", "AFTER INSERT ON jobs", JobLifecycle.jobChangedBeforeKinds, returning: "NULL")
                + trigger("documents_job_changed", "AFTER UPDATE OF status ON jobs", JobLifecycle.jobChangedBeforeKinds, returning: "NULL")
        ),
        ("v8-title-key", ["ALTER TABLE documents ADD COLUMN title_key text NOT NULL DEFAULT ''"]),
        (
            "v9-playback",
            [
                "ALTER TABLE documents ADD COLUMN playback text",
                "ALTER TABLE jobs ADD COLUMN kind text NOT NULL DEFAULT '\(JobRecord.Kind.preview.rawValue)'",
                function("documents_job_inserted", JobLifecycle.jobChanged, returning: "NULL"),
                function("documents_job_changed", JobLifecycle.jobChanged, returning: "NULL")
            ]
        ),
        ("v10-job-progress", ["ALTER TABLE jobs ADD COLUMN progress double precision"]),
        (
            "v11-shares",
            [
                """
                CREATE TABLE shares (id text PRIMARY KEY, token_sha256 text NOT NULL UNIQUE, document_id text NOT NULL, version bigint,
                    label text NOT NULL, password_hash text, allow_download boolean NOT NULL, created_at timestamptz NOT NULL,
                    expires_at timestamptz, revoked_at timestamptz, opened_count bigint NOT NULL DEFAULT 0, last_opened_at timestamptz,
                    download_count bigint NOT NULL DEFAULT 0)
                """,
                "CREATE INDEX shares_document ON shares (document_id)"
            ]
        ),
        (
            "v12-share-visits",
            [
                "CREATE TABLE share_visits (id bigserial PRIMARY KEY, share_id text NOT NULL, kind text NOT NULL, at timestamptz NOT NULL)",
                "CREATE INDEX share_visits_share ON share_visits (share_id, id)"
            ]
        ),
        (
            "v13-downloads",
            [
                """
                CREATE TABLE downloads (seq bigserial PRIMARY KEY, id text NOT NULL, client_id text NOT NULL, device text,
                    owner text NOT NULL, url text NOT NULL, normalized_url text NOT NULL, route text NOT NULL, status text NOT NULL,
                    attempts bigint NOT NULL, available_at timestamptz NOT NULL, lease_owner text, lease_expires_at timestamptz, document_id text,
                    error_code text, error_message text, client_timestamp text, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)
                """,
                "CREATE UNIQUE INDEX downloads_id ON downloads (id)",
                "CREATE UNIQUE INDEX downloads_link ON downloads (client_id, normalized_url)",
                "CREATE INDEX downloads_client ON downloads (client_id, seq)",
                "CREATE INDEX downloads_due ON downloads (status, available_at)",
                "CREATE INDEX downloads_document ON downloads (document_id)",
                """
                CREATE TABLE devices (name text PRIMARY KEY, token_sha256 text NOT NULL, owner text NOT NULL, created_at timestamptz NOT NULL,
                    revoked_at timestamptz)
                """,
                "CREATE UNIQUE INDEX devices_token ON devices (token_sha256)"
            ]
        ),
        (
            "v14-downloads-per-device",
            [
                "DROP INDEX downloads_link",
                "CREATE UNIQUE INDEX downloads_link ON downloads (coalesce(device, ''), client_id, normalized_url)"
            ]
        ),
        (
            "v15-kept-at-scale",
            [
                "ALTER TABLE documents ADD COLUMN latest boolean NOT NULL DEFAULT false",
                "ALTER TABLE documents ADD COLUMN live_shares bigint NOT NULL DEFAULT 0",
                "ALTER TABLE shares ADD COLUMN lapsed boolean NOT NULL DEFAULT false"
            ] + CurrentDocuments.backfill(now: "now()")
                + trigger("current_version_inserted", "AFTER INSERT ON documents", CurrentDocuments.versionInserted, returning: "NULL")
                + trigger("current_version_deleted", "AFTER DELETE ON documents", CurrentDocuments.versionDeleted, returning: "NULL")
                + trigger(
                    "current_version_changed", "AFTER UPDATE OF latest, live_shares ON documents", CurrentDocuments.versionChanged,
                    returning: "NULL")
                + trigger("current_share_inserted", "AFTER INSERT ON shares", CurrentDocuments.shareInserted, returning: "NULL")
                + trigger(
                    "current_share_changed", "AFTER UPDATE OF revoked_at, lapsed, document_id ON shares", CurrentDocuments.shareChanged,
                    returning: "NULL")
                + trigger("current_share_deleted", "AFTER DELETE ON shares", CurrentDocuments.shareDeleted, returning: "NULL")
                // Titles and types sort in byte order, as SQLite sorts them (the listing orders by the same expressions).
                + CurrentDocuments.indexStatements { "\($0) COLLATE \"C\"" }
                + ["jobs", "downloads"].map(StatusCounts.backfill)
                + StatusCounts.triggers.flatMap { trigger($0.name, $0.event, $0.statements, returning: "NULL") }
        ),
        // The latest versions' title keys by trigram (``TextSearch``); the status counters take their
        // row locks in one order (``StatusCounts``).
        (
            "v16-title-search",
            [
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                "CREATE INDEX documents_current_title_trigrams ON documents USING gin (title_key gin_trgm_ops) WHERE latest"
            ] + StatusCounts.triggers.map { function($0.name, $0.statements, returning: "NULL") }
        ),
        // A description and a school on every version; a text search reads the latest versions'
        // search keys by trigram (made after the keys are filled: ``backfills``).
        (
            "v17-description-school",
            [
                "ALTER TABLE documents ADD COLUMN description text NOT NULL DEFAULT ''",
                "ALTER TABLE documents ADD COLUMN school text",
                "ALTER TABLE documents ADD COLUMN search_key text NOT NULL DEFAULT ''",
                "ALTER TABLE shares ADD COLUMN school text",
                "DROP INDEX documents_current_title_trigrams"
            ] + CurrentDocuments.schoolIndexStatements()
                // The figures count current documents per school (``StoreFigures``); no school existed before.
                + [
                    function("figures_document_inserted", StoreFigures.documentInserted(), returning: "NEW"),
                    function("figures_document_deleted", StoreFigures.documentDeleted(), returning: "OLD")
                ]
                + trigger(
                    "figures_document_school_changed", "BEFORE UPDATE OF school ON documents", StoreFigures.documentSchoolChanged,
                    returning: "NEW")
        ),
        // A text search finds a document by its school too (``backfills``).
        ("v18-search-school", []),
        // Resumable uploads: a session per upload, its parts in the staging (``UploadSessions``).
        (
            "v19-uploads",
            [
                """
                CREATE TABLE upload_sessions (id text PRIMARY KEY, owner text NOT NULL, client text NOT NULL, front text NOT NULL,
                    labels text NOT NULL, length bigint, received bigint NOT NULL, status text NOT NULL,
                    created_at bigint NOT NULL, expires_at bigint NOT NULL, document_id text, job_id bigint, sha256 text,
                    appender text, appending_until bigint)
                """,
                "CREATE INDEX upload_sessions_owner ON upload_sessions (owner, status)",
                "CREATE INDEX upload_sessions_client ON upload_sessions (client, status)",
                "CREATE INDEX upload_sessions_expiry ON upload_sessions (expires_at)",
                """
                CREATE TABLE upload_parts (session_id text NOT NULL, start bigint NOT NULL, length bigint NOT NULL, name text NOT NULL,
                    PRIMARY KEY (session_id, start))
                """
            ]
        ),
        // The words of each page of a document's text, with its derivative (``PageTexts``).
        (
            "v20-page-texts",
            [
                """
                CREATE TABLE page_texts (derivative text NOT NULL REFERENCES derivatives (key) ON DELETE CASCADE, page integer NOT NULL,
                    width double precision NOT NULL, height double precision NOT NULL, text text NOT NULL, words text NOT NULL,
                    truncated boolean NOT NULL, PRIMARY KEY (derivative, page))
                """
            ]
        ),
        // A text whose hits a share's pages show marked (``ShareRecord/highlight``).
        ("v21-share-highlight", ["ALTER TABLE shares ADD COLUMN highlight text"]),
        // Each page's search text (folded in Swift from its words), read by trigram (``PageSearch``;
        // the index is made once the rows have theirs: ``backfills``). `id` numbers the rows as
        // SQLite's rowid does.
        (
            "v22-page-search",
            [
                "ALTER TABLE page_texts ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY",
                "ALTER TABLE page_texts ADD COLUMN search_text text NOT NULL DEFAULT ''"
            ]
        ),
        // A text search newest or oldest first reads postings kept in the creation order (``SearchPostings``).
        ("v23-search-in-creation-order", SearchPostings.statements),
        // A share's link kept, for its owner to find again (``ShareRecord/linkToken``).
        ("v24-share-link", ["ALTER TABLE shares ADD COLUMN link_token text"]),
        ("v25-poster", ["ALTER TABLE documents ADD COLUMN frame_s double precision, ADD COLUMN poster_score double precision"]),
        // A highlight reel's poster chosen among its plays (``MediaFacts/posterPlay``).
        ("v26-poster-play", ["ALTER TABLE documents ADD COLUMN poster_play integer"]),
        // What each view of a share's page read and watched (``ShareViewRecord``), and each share's totals (``ShareReadingSummary``).
        (
            "v27-share-views",
            [
                """
                CREATE TABLE share_views (share_id text NOT NULL, view_id text NOT NULL, visitor text NOT NULL, started_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL, pages text NOT NULL, played text NOT NULL, duration double precision,
                    PRIMARY KEY (share_id, view_id))
                """,
                "CREATE INDEX share_views_share ON share_views (share_id, started_at)",
                "CREATE INDEX share_views_visitor ON share_views (share_id, visitor, updated_at)",
                """
                CREATE TABLE share_readings (share_id text PRIMARY KEY, visits bigint NOT NULL, last_visit_at timestamptz, pages text NOT NULL,
                    played text NOT NULL, duration double precision)
                """
            ]
        ),
        // What an owner's app waits for (``OwnerEvent``), in the order kept: their inserts take turns (``DocumentIndex/recordShareVisit``);
        // how far each webhook has delivered them.
        (
            "v28-owner-events",
            [
                """
                CREATE TABLE owner_events (seq bigserial PRIMARY KEY, kind text NOT NULL, owner text NOT NULL, document_id text NOT NULL,
                    share_id text NOT NULL, school text, label text NOT NULL, at timestamptz NOT NULL)
                """,
                "CREATE INDEX owner_events_owner ON owner_events (owner, seq)",
                "CREATE TABLE webhook_cursors (target text PRIMARY KEY, delivered_through bigint NOT NULL)"
            ]
        ),
        // The text burned into everything a share serves (``ShareRecord/watermark``).
        ("v29-share-watermark", ["ALTER TABLE shares ADD COLUMN watermark text"]),
        // What a share paints out of everything it serves (``ShareRecord/redaction``, JSON).
        ("v30-share-redaction", ["ALTER TABLE shares ADD COLUMN redaction text"]),
        // A view's zooms and downloads (``ShareViewActions``), and a share's in all.
        (
            "v31-share-view-actions",
            ["share_views", "share_readings"].flatMap { table in
                ["zooms", "downloads"].map { "ALTER TABLE \(table) ADD COLUMN \($0) integer NOT NULL DEFAULT 0" }
            }
        ),
        // Links' cards by normalised link (``LinkCardRecord``), their pictures kept by `gc` (``IndexSQL/live``).
        (
            "v32-link-cards",
            [
                """
                CREATE TABLE link_cards (url text PRIMARY KEY, card text, picture_sha256 text, picture_error_code text,
                    picture_error_message text, error_code text, error_message text, fetched_at timestamptz NOT NULL)
                """,
                "CREATE INDEX link_cards_picture ON link_cards (picture_sha256) WHERE picture_sha256 IS NOT NULL"
            ]
        )
    ]

    /// Steps of a migration that SQL cannot say, run after its statements in its transaction: the
    /// title and search keys are folded in Swift (``DocumentLabels/titleKey(_:)``), as SQLite's are.
    static let backfills: [String: @Sendable (Session) async throws -> Void] = [
        "v8-title-key": { session in
            for row in try await session.query("SELECT id, title FROM documents") {
                let (id, title) = (try row["id"].decode(String.self), try row["title"].decode(String.self))
                try await session.query("UPDATE documents SET title_key = \(DocumentLabels.titleKey(title)) WHERE id = \(id)")
            }
        },
        "v17-description-school": { session in
            for row in try await session.query("SELECT id, title, filename FROM documents") {
                let (id, title, filename) = (
                    try row["id"].decode(String.self), try row["title"].decode(String.self), try row["filename"].decode(String.self)
                )
                let key = DocumentLabels.searchKey(title: title, description: "", filename: filename)
                try await session.query("UPDATE documents SET search_key = \(key) WHERE id = \(id)")
            }
            try await session.query("CREATE INDEX documents_current_search_trigrams ON documents USING gin (search_key gin_trgm_ops) WHERE latest")
        },
        "v18-search-school": { session in
            for row in try await session.query("SELECT id, title, description, filename, school FROM documents WHERE school IS NOT NULL") {
                let key = DocumentLabels.searchKey(
                    title: try row["title"].decode(String.self), description: try row["description"].decode(String.self),
                    filename: try row["filename"].decode(String.self), school: try row["school"].decode(String?.self))
                try await session.query("UPDATE documents SET search_key = \(key) WHERE id = \(try row["id"].decode(String.self))")
            }
        },
        "v22-page-search": { session in
            for row in try await session.query("SELECT id, words FROM page_texts") {
                let words = try PageTexts.words(stored: try row["words"].decode(String.self))
                try await session.query(
                    """
                    UPDATE page_texts SET search_text = \(TextHits.searchText(of: words)), words = \(PageTexts.storedWords(words))
                    WHERE id = \(try row["id"].decode(Int.self))
                    """)
            }
            try await session.query("CREATE INDEX page_texts_search_trigrams ON page_texts USING gin (search_text gin_trgm_ops)")
        }
    ]

    /// A row trigger running `statements` in a PL/pgSQL function of the same name.
    private static func trigger(_ name: String, _ event: String, _ statements: [String], returning row: String) -> [String] {
        [function(name, statements, returning: row), "CREATE TRIGGER \(name) \(event) FOR EACH ROW EXECUTE FUNCTION \(name)()"]
    }

    /// The PL/pgSQL trigger function `name` running `statements` (replacing one of that name).
    private static func function(_ name: String, _ statements: [String], returning row: String) -> String {
        "CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN\n\(statements.joined(separator: ";\n"));\nRETURN "
            + "\(row);\nEND $$"
    }

    /// Any fixed number: the advisory lock that serialises migrations across hosts.
    static let migrationLock: Int64 = 0x646f_6370_7276

    /// How long one statement of a migration, or the wait for another host's migration, may take:
    /// far longer than a request's deadline, because filling a new table or index of a large store
    /// takes minutes (the search postings, about two at 10⁶ documents).
    static let migrationTimeout: Duration = .seconds(3_600)

    /// Applies the migrations not applied yet, up to the one named `last` (nil: all of them; a name
    /// that is none: none), as GRDB's migrator does for SQLite.
    static func migrate(_ connections: PostgresConnections, upTo last: String? = nil) async throws {
        try await connections.withConnection(timeout: migrationTimeout) { session in
            try await session.query("SELECT pg_advisory_lock(\(migrationLock))")
            do {
                try await applyMissing(on: session, upTo: last)
            } catch {
                _ = try? await session.query("SELECT pg_advisory_unlock(\(migrationLock))")
                throw error
            }
            try await session.query("SELECT pg_advisory_unlock(\(migrationLock))")
        }
    }

    /// The migrations not applied yet, each in its transaction.
    private static func applyMissing(on session: Session, upTo last: String?) async throws {
        try await session.query("CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL)")
        let applied = Set(try await session.query("SELECT name FROM schema_migrations").map { try $0["name"].decode(String.self) })
        let count = last.map { name in (migrations.firstIndex { $0.name == name } ?? -1) + 1 } ?? migrations.count
        for migration in migrations.prefix(count) where !applied.contains(migration.name) {
            try await session.transaction {
                for statement in migration.statements { try await session.query(.init(unsafeSQL: statement)) }
                try await backfills[migration.name]?(session)
                try await session.query("INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), now())")
            }
        }
    }
}
