import Foundation
import Logging
import PostgresNIO
import PreviewPostgres

/// A database outage as its clients see it: the test server refuses connections to `database` and
/// ends the ones it has, until ``end()``.
package struct DatabaseOutage {
    let name: String
    let server: PostgresConnections

    /// Starts an outage of the database at `address` (made by ``TestBackend/freshDatabase()``).
    package static func begin(_ address: String) async throws -> DatabaseOutage {
        guard let server = TestBackend.serverURL, let name = URLComponents(string: address)?.path.dropFirst() else {
            throw PostgresDriverError("no test database server")
        }
        let outage = DatabaseOutage(name: String(name), server: try await PostgresConnections(url: server, size: 1, logger: Logger(label: "test")))
        try await outage.server.query("ALTER DATABASE \(unescaped: outage.name) ALLOW_CONNECTIONS false")
        try await outage.server.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(outage.name)")
        return outage
    }

    package func end() async throws {
        try await server.query("ALTER DATABASE \(unescaped: name) ALLOW_CONNECTIONS true")
    }
}
