import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// The index in PostgreSQL, shared by every host (DESIGN §11). Same behaviour as ``SQLiteIndex``;
/// statistics are SQL aggregates on the server.
public struct PostgresIndex: DocumentIndex {
    let connections: PostgresConnections

    /// Uses `connections`, migrating the schema when needed.
    public init(connections: PostgresConnections) throws {
        self.connections = connections
        try PostgresSchema.migrate(connections)
    }

    /// `live`: the originals of documents and what is derived from them, transitively (an office
    /// document's PDF pivot, then its pages). Derivatives of anything else belong to deleted documents.
    static let live = """
        WITH RECURSIVE live(sha256) AS (SELECT sha256 FROM documents
            UNION SELECT v.result_sha256 FROM derivatives v JOIN live l ON v.source_sha256 = l.sha256)
        """

    public func referencedBlobs() throws -> Set<BlobHash> {
        let rows = try connections.query("\(unescaped: Self.live) SELECT sha256 FROM live")
        return Set(try rows.map { try $0.hash("sha256") })
    }

    public func forgetUnusedBlobs() throws -> [BlobHash] {
        try connections.query("\(unescaped: Self.live) DELETE FROM derivatives WHERE source_sha256 NOT IN (SELECT sha256 FROM live)")
        let rows = try connections.query("""
            DELETE FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = b.sha256)
            AND NOT EXISTS (SELECT 1 FROM derivatives v WHERE v.source_sha256 = b.sha256 OR v.result_sha256 = b.sha256)
            RETURNING sha256
            """)
        return try rows.map { try $0.hash("sha256") }
    }

    public func insertVersion(_ document: DocumentRecord) throws -> (document: DocumentRecord, inserted: Bool) {
        try connections.transaction { session in try Self.insertVersion(document, in: session) }
    }

    /// ``insertVersion(_:)`` inside a caller's transaction. Versions of one (owner, type, title)
    /// are numbered under a transaction-scoped advisory lock, so concurrent uploads on several
    /// hosts get consecutive versions instead of a unique-key failure.
    static func insertVersion(_ document: DocumentRecord, in session: Session) throws -> (document: DocumentRecord, inserted: Bool) {
        let key = "\(document.owner)\u{1F}\(document.type)\u{1F}\(document.title)"
        try session.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))")
        try session.query("""
            INSERT INTO blobs (sha256, size, mime, created_at) VALUES (\(document.sha256.hex), \(document.size), \(document.mime), now())
            ON CONFLICT DO NOTHING
            """)
        let latest = try session.query("""
            SELECT * FROM documents WHERE owner = \(document.owner) AND type = \(document.type) AND title = \(document.title)
            ORDER BY version DESC LIMIT 1
            """).first.map(DocumentRecord.init(row:))
        if let latest, latest.sha256 == document.sha256 { return (latest, false) }
        var next = document
        next.version = (latest?.version ?? 0) + 1
        let facts = next.facts
        try session.query("""
            INSERT INTO documents (id, owner, type, title, filename, sha256, kind, mime, size, pages, duration_s, width, height,
                codec, rotation, version, preview_status, error_code, error_message, created_at)
            VALUES (\(next.id), \(next.owner), \(next.type), \(next.title), \(next.filename), \(next.sha256.hex), \(next.kind),
                \(next.mime), \(next.size), \(facts.pages), \(facts.durationSeconds), \(facts.width), \(facts.height),
                \(facts.codec), \(facts.rotation), \(next.version), \(next.previewStatus.rawValue), \(next.errorCode), \(next.errorMessage),
                \(next.createdAt))
            """)
        return (next, true)
    }

    public func setFacts(documentID: String, facts: MediaFacts) throws {
        try connections.query("""
            UPDATE documents SET pages = \(facts.pages), duration_s = \(facts.durationSeconds), width = \(facts.width),
            height = \(facts.height), codec = \(facts.codec), rotation = \(facts.rotation) WHERE id = \(documentID)
            """)
    }

    public func latestVersion(owner: String, type: String, title: String) throws -> DocumentRecord? {
        try connections.query("""
            SELECT * FROM documents WHERE owner = \(owner) AND type = \(type) AND title = \(title) ORDER BY version DESC LIMIT 1
            """).first.map(DocumentRecord.init(row:))
    }

    public func setPreviewStatus(documentID: String, status: PreviewStatus, error: PreviewError?) throws {
        try connections.query("""
            UPDATE documents SET preview_status = \(status.rawValue), error_code = \(error?.code.rawValue),
            error_message = \(error?.message) WHERE id = \(documentID)
            """)
    }

    public func document(id: String) throws -> DocumentRecord? {
        try connections.query("SELECT * FROM documents WHERE id = \(id)").first.map(DocumentRecord.init(row:))
    }

    public func latestDocument(sha256: BlobHash) throws -> DocumentRecord? {
        try connections.query("SELECT * FROM documents WHERE sha256 = \(sha256.hex) ORDER BY created_at DESC LIMIT 1")
            .first.map(DocumentRecord.init(row:))
    }

    public func derivative(key: String) throws -> DerivativeRecord? {
        try connections.query("SELECT * FROM derivatives WHERE key = \(key)").first.map(DerivativeRecord.init(row:))
    }

    public func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) throws {
        try connections.transaction { session in
            try session.query("""
                INSERT INTO blobs (sha256, size, mime, created_at) VALUES (\(derivative.resultSha256.hex), \(resultSize), \(resultMime), now())
                ON CONFLICT DO NOTHING
                """)
            try session.query("""
                INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at)
                VALUES (\(derivative.key), \(derivative.sourceSha256.hex), \(derivative.operation), \(derivative.parameters),
                    \(derivative.renderer), \(derivative.resultSha256.hex), \(derivative.width), \(derivative.height), \(derivative.createdAt))
                ON CONFLICT DO NOTHING
                """)
        }
    }

    public func statistics(owner: String?) throws -> StorageStatistics {
        // One round trip: every figure is an aggregate over the owner's documents ($1 NULL: all owners).
        let row = try connections.query("""
            WITH scoped AS (SELECT * FROM documents WHERE \(owner)::text IS NULL OR owner = \(owner)),
            current AS (SELECT DISTINCT ON (owner, type, title) * FROM scoped ORDER BY owner, type, title, version DESC),
            pivots AS (SELECT result_sha256 AS sha256 FROM derivatives WHERE operation = 'convert' AND source_sha256 IN (SELECT sha256 FROM scoped)),
            results AS (SELECT DISTINCT result_sha256 AS sha256 FROM derivatives
                        WHERE source_sha256 IN (SELECT sha256 FROM scoped) OR source_sha256 IN (SELECT sha256 FROM pivots))
            SELECT
                (SELECT COUNT(*) FROM current) AS documents,
                (SELECT COUNT(*) FROM scoped) AS versions,
                (SELECT COALESCE(json_object_agg(name, n), '{}')::text FROM
                    (SELECT CASE type WHEN '' THEN 'unspecified' ELSE type END AS name, COUNT(*) AS n FROM current GROUP BY 1) t) AS by_type,
                (SELECT COALESCE(json_object_agg(name, n), '{}')::text FROM
                    (SELECT CASE kind WHEN '' THEN 'unspecified' ELSE kind END AS name, COUNT(*) AS n FROM current GROUP BY 1) k) AS by_kind,
                (SELECT COALESCE(SUM(size), 0)::bigint FROM scoped) AS logical_bytes,
                (SELECT COALESCE(SUM(size), 0)::bigint FROM blobs WHERE sha256 IN (SELECT sha256 FROM scoped)) AS stored_bytes,
                (SELECT COUNT(*) FROM results) AS previews,
                (SELECT COALESCE(SUM(size), 0)::bigint FROM blobs WHERE sha256 IN (SELECT sha256 FROM results)) AS preview_bytes
            """)[0]
        func counts(_ column: String) throws -> [String: Int] {
            try JSONDecoder().decode([String: Int].self, from: Data(try row[column].decode(String.self).utf8))
        }
        return StorageStatistics(
            owner: owner,
            documents: try row["documents"].decode(Int.self),
            versions: try row["versions"].decode(Int.self),
            byType: try counts("by_type"),
            byKind: try counts("by_kind"),
            logicalBytes: try row["logical_bytes"].decode(Int.self),
            storedBytes: try row["stored_bytes"].decode(Int.self),
            previews: try row["previews"].decode(Int.self),
            previewBytes: try row["preview_bytes"].decode(Int.self))
    }
}
