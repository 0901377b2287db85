import Foundation
import Logging
import PostgresNIO
import PreviewStore

/// The store's reference lock (``ReferenceLock``) as a PostgreSQL advisory lock, for blobs that
/// many hosts share without a filesystem (an object store): every host that shares the index
/// shares the lock. Held in a transaction on a connection of its own pool while the body runs, so
/// a holder whose connection dies loses it at once; the body's own queries use the index's pool.
/// A waiting `gc` (exclusive) is queued before writers that come after it.
package struct PostgresReferenceLock: ReferenceLock {
    private let connections: PostgresConnections
    /// The advisory lock's key: "docprevi" in ASCII.
    static let key: Int64 = 0x646f_6370_7265_7669

    /// Connects to `url`; up to `holders` writers of this process hold the lock at once.
    package init(url: String, holders: Int = 6, logger: Logger) async throws {
        connections = try await PostgresConnections(url: url, size: holders, logger: logger)
    }

    package func whileHeld<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T {
        // Not `connections.transaction`: `body` does more than talk to this connection, so it is never run twice.
        try await connections.withConnection { session in
            try await session.transaction {
                try await session.query(exclusive ? "SELECT pg_advisory_xact_lock(\(Self.key))" : "SELECT pg_advisory_xact_lock_shared(\(Self.key))")
                return try await body()
            }
        }
    }
}
