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
}
