import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewPipeline
@testable import PreviewPostgres
import PreviewRenderers
import PreviewTestSupport
import Synchronization
import Testing

/// The PostgreSQL driver outlives its connections: the server ending them (a restart, a failover,
/// an administrator) costs no more than the calls in flight.
@Suite(.blocking, .enabled(if: TestBackend.available.contains(.postgres)))
struct PostgresConnectionTests {
    @Test func connectionsEndedByTheServerAreReplaced() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let store = try await StoreBackend(root: folder.url, database: database, offload: .forTests, logger: Logger(label: "test")).store
        #expect(try await store.index.statistics().documents == 0)
        let administrator = try await PostgresConnections(url: database, size: 1, logger: Logger(label: "test"))
        let ended = try await administrator.query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        #expect(!ended.isEmpty, "the store's connection was ended")
        try await waitUntilAsync("the ended connections to be gone from the server") {
            try await administrator.query(
                """
                SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """
            ).first?[0].decode(Int.self) == 0
        }
        // the store's side reads the server's close a moment later: its pool offers no event to wait for
        try await Task.sleep(for: .milliseconds(200))
        let started = Date()
        #expect(try await store.index.statistics().documents == 0, "answered on a new connection")
        // The query deadline is 30 s: an answer well before it came from a new connection, not a timed-out one.
        #expect(Date().timeIntervalSince(started) < 25, "not after waiting out the query deadline")
    }

    /// Two transactions that lock two rows in opposite orders deadlock; PostgreSQL ends one, which is
    /// run again and succeeds: neither caller sees the conflict (the counters' rows can meet this way).
    @Test func aTransactionEndedByADeadlockRunsAgain() async throws {
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let connections = try await PostgresConnections(url: database, size: 2, logger: Logger(label: "test"))
        try await connections.query("CREATE TABLE pair (id int PRIMARY KEY, n int NOT NULL)")
        try await connections.query("INSERT INTO pair VALUES (1, 0), (2, 0)")
        let attempts = Mutex(0)
        let locked = Mutex(0)
        let failures = Locked<[String]>([])
        /// Locks row `first`, then (on the first attempts, once the other holds its row) row `second`.
        let lock: @Sendable (Int, Int) async -> Void = { first, second in
            do {
                try await connections.transaction { session in
                    let attempt = attempts.withLock { count in
                        count += 1
                        return count
                    }
                    try await session.query("UPDATE pair SET n = n + 1 WHERE id = \(first)")
                    if attempt <= 2 {
                        locked.withLock { $0 += 1 }
                        try await waitUntilAsync("both rows locked") { locked.withLock { $0 } >= 2 }
                    }
                    try await session.query("UPDATE pair SET n = n + 1 WHERE id = \(second)")
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        async let one: Void = lock(1, 2)
        async let other: Void = lock(2, 1)
        _ = await (one, other)
        #expect(failures.withLock { $0 }.isEmpty)
        // One of the two ran again; on a loaded machine its retry can meet the other still queued for
        // the row it took back, deadlock again and run a third time: what holds is that it ran again.
        #expect(attempts.withLock { $0 } >= 3, "one of the two ran again")
        let totals = try await connections.query("SELECT sum(n)::int FROM pair").first?[0].decode(Int.self)
        #expect(totals == 4, "each transaction's two updates, once")
    }
}
