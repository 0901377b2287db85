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

/// Opening one new store from several places at once (batch jobs in separate processes, a server and
/// its workers starting together) must migrate it exactly once.
@Suite struct StoreOpeningTests {
    @Test(arguments: TestBackend.available) func concurrentFirstOpensMigrateOnce(backend: TestBackend) async throws {
        for _ in 0..<10 {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let database = try await backend.freshDatabase()
            let failures = Locked<[String]>([])
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        do {
                            _ = try await StoreBackend(root: folder.url, database: database, offload: .forTests, logger: Logger(label: "test"))
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
        }
    }

    /// A host that opens the store while another migrates it waits for that migration, however long
    /// it takes: neither the wait nor a migration's statements are cut at a statement's deadline.
    @Test(.enabled(if: TestBackend.available.contains(.postgres))) func anOpeningWaitsOutAnotherHostsMigration() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try #require(try await TestBackend.postgres.freshDatabase())
        let other = try await PostgresConnections(url: database, size: 2, logger: Logger(label: "test"))
        try await other.withConnection { migrating in
            try await migrating.query("SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))")
            let opening = Task {
                try await StoreBackend(
                    root: folder.url, database: database, offload: .forTests, statementTimeout: .seconds(1),
                    logger: Logger(label: "test"))
            }
            try await waitUntilAsync("the opening to wait for the migration's lock") {
                try await other.query(
                    """
                    SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """)[0]["n"].decode(Int.self) == 1
            }
            try await Task.sleep(for: .seconds(2))  // the pause is the test: the lock held past the opening's 1 s deadline
            try await migrating.query("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))")
            let backend = try await opening.value
            #expect(try await backend.store.index.statistics().documents == 0)
        }
    }
}
