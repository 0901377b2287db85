import Foundation
import PostgresNIO
import PreviewCore
import PreviewDomain
import PreviewStore

/// The index in PostgreSQL, shared by every host (DESIGN §11). Same behaviour as ``SQLiteIndex``;
/// statistics are SQL aggregates on the server.
public struct PostgresIndex: DocumentIndex {
    let connections: PostgresConnections

    /// Uses `connections`, migrating the schema when needed.
    public init(connections: PostgresConnections) async throws {
        self.connections = connections
        try await PostgresSchema.migrate(connections)
    }

    /// PostgreSQL keeps its own pages consistent and its foreign keys enforce these; what can still
    /// be wrong after a restore from parts or a manual edit is rows naming absent rows.
    public func integrityProblems() async throws -> [String] {
        let rows = try await connections.query(
            """
            SELECT 'documents' AS source, COUNT(*) AS n FROM documents d
                WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = d.sha256)
            UNION ALL SELECT 'derivatives', COUNT(*) FROM derivatives v
                WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = v.source_sha256)
                OR NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = v.result_sha256)
            UNION ALL SELECT 'jobs', COUNT(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = j.document_id)
            """)
        return try rows.compactMap { row in
            let (source, count) = (try row["source"].decode(String.self), try row["n"].decode(Int.self))
            return count == 0 ? nil : "\(count) rows of \(source) name missing rows"
        }
    }

    /// The owner's (or everyone's) documents with a live share, counted from the shares.
    func sharedDocuments(owner: String?) async throws -> Int {
        try await connections.query(
            """
            SELECT COUNT(*) AS n FROM documents d WHERE (\(owner)::text IS NULL OR d.owner = \(owner)) AND \(unescaped: IndexSQL.isLatestVersion)
            AND \(unescaped: IndexSQL.liveShares(now: "now()")) > 0
            """
        ).first.map { try $0["n"].decode(Int.self) } ?? 0
    }

    public func recountStatistics(owner: String?) async throws -> StorageStatistics {
        try await sweepLapsedShares()
        // One round trip: every figure is an aggregate over the owner's documents ($1 NULL: all owners).
        let row = try await connections.query(
            """
            WITH scoped AS (SELECT * FROM documents WHERE \(owner)::text IS NULL OR owner = \(owner)),
            current AS (SELECT DISTINCT ON (owner, type, title) * FROM scoped ORDER BY owner, type, title, version DESC),
            pivots AS (SELECT result_sha256 AS sha256 FROM derivatives WHERE operation = \(DerivativeOperation.convert.rawValue) AND source_sha256 \
            IN (SELECT sha256 FROM scoped)),
            results AS (SELECT COALESCE(b.size, 0) AS size FROM derivatives v LEFT JOIN blobs b ON b.sha256 = v.result_sha256
                        WHERE v.source_sha256 IN (SELECT sha256 FROM scoped) OR v.source_sha256 IN (SELECT sha256 FROM pivots))
            SELECT
                (SELECT COUNT(*) FROM current) AS documents,
                (SELECT COUNT(*) FROM scoped) AS versions,
                (SELECT COALESCE(json_object_agg(name, n), '{}')::text FROM
                    (SELECT CASE type WHEN '' THEN 'unspecified' ELSE type END AS name, COUNT(*) AS n FROM current GROUP BY 1) t) AS by_type,
                (SELECT COALESCE(json_object_agg(name, n), '{}')::text FROM
                    (SELECT CASE kind WHEN '' THEN 'unspecified' ELSE kind END AS name, COUNT(*) AS n FROM current GROUP BY 1) k) AS by_kind,
                (SELECT COALESCE(json_object_agg(school, n), '{}')::text FROM
                    (SELECT school, COUNT(*) AS n FROM current WHERE school IS NOT NULL GROUP BY 1) s) AS by_school,
                (SELECT COALESCE(SUM(size), 0)::bigint FROM scoped) AS logical_bytes,
                (SELECT COALESCE(SUM(size), 0)::bigint FROM blobs WHERE sha256 IN (SELECT sha256 FROM scoped)) AS stored_bytes,
                (SELECT COUNT(*) FROM results) AS previews,
                (SELECT COALESCE(SUM(size), 0)::bigint FROM results) AS preview_bytes,
                (SELECT COALESCE(MAX(value), 0)::bigint FROM counters WHERE name = 'evicted_previews') AS evicted_previews
            """)[0]
        func counts(_ column: String) throws -> [String: Int] {
            try JSONDecoder().decode([String: Int].self, from: Data(try row[column].decode(String.self).utf8))
        }
        var statistics = StorageStatistics(
            owner: owner,
            documents: try row["documents"].decode(Int.self),
            versions: try row["versions"].decode(Int.self),
            byType: try counts("by_type"),
            byKind: try counts("by_kind"),
            logicalBytes: try row["logical_bytes"].decode(Int.self),
            storedBytes: try row["stored_bytes"].decode(Int.self),
            previews: try row["previews"].decode(Int.self),
            previewBytes: try row["preview_bytes"].decode(Int.self))
        if owner == nil { statistics.evictedPreviews = try row["evicted_previews"].decode(Int.self) }
        statistics.sharedDocuments = try await sharedDocuments(owner: owner)
        statistics.bySchool = try counts("by_school")
        return statistics
    }
}
