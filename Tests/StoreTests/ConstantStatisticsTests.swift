import Foundation
import GRDB
import GRDBSQLite
import Logging
import PostgresNIO
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDomain
@testable import PreviewPostgres
@testable import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

/// What `/v1/stats` and `/metrics` read (the figures, overall and of an owner, and the jobs' and
/// downloads' counts by status) costs the same whatever the store's size (issue 43): counted as the
/// instructions SQLite's virtual machine runs, and as the rows PostgreSQL reads (within the few
/// that its planner's probes vary by), with 20 documents and again with 420.
@Suite struct ConstantStatisticsTests {
    /// Instructions run on the traced SQLite index's connections.
    static let instructions = Atomic<Int>(0)

    /// Adds `count` documents to two owners' two types and kinds, each with its job, and a share of the first.
    static func fill(_ queue: any JobQueue, index: any DocumentIndex, from first: Int, count: Int) async throws {
        for number in first..<(first + count) {
            let content = Data("constant statistics \(number)".utf8)
            let document = Document(
                id: UUID().uuidString.lowercased(), owner: number % 2 == 0 ? "ana" : "ben", type: number % 3 == 0 ? "resume" : "",
                title: "document \(number)", filename: "d.pdf", sha256: BlobHash.of(content), kind: number % 5 == 0 ? .mp4 : .pdf,
                mime: "application/octet-stream", size: content.count, facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date())
            let stored = try await queue.enqueue(document).document
            if number == first {
                try await index.insertShare(
                    ShareRecord(
                        id: UUID().uuidString, tokenSha256: UUID().uuidString, documentID: stored.id, version: nil,
                        label: "school", passwordHash: nil, allowDownload: true, createdAt: Date(), expiresAt: nil))
            }
        }
    }

    /// Reads what the statistics and metrics read.
    static func readFigures(_ queue: any JobQueue, _ downloads: any DownloadQueue, index: any DocumentIndex) async throws {
        _ = try await index.statistics(owner: nil)
        _ = try await index.statistics(owner: "ana")
        _ = try await queue.counts()
        _ = try await downloads.downloadCounts()
    }

    @Test func sqliteRunsTheSameInstructionsAtAnySize() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let index = try SQLiteIndex(url: folder.url.appendingPathComponent("index.sqlite")) { db in
            sqlite3_progress_handler(
                db.sqliteConnection, 1,
                { _ in
                    ConstantStatisticsTests.instructions.add(1, ordering: .relaxed)
                    return 0
                }, nil)
        }
        let (queue, downloads) = (SQLiteJobQueue(index: index), SQLiteDownloadQueue(index: index))
        /// The second read: the first one on a connection also reads the schema.
        func instructionsToRead() async throws -> Int {
            try await Self.readFigures(queue, downloads, index: index)
            let before = Self.instructions.load(ordering: .relaxed)
            try await Self.readFigures(queue, downloads, index: index)
            return Self.instructions.load(ordering: .relaxed) - before
        }
        try await Self.fill(queue, index: index, from: 0, count: 20)
        let small = try await instructionsToRead()
        try await Self.fill(queue, index: index, from: 20, count: 400)
        let large = try await instructionsToRead()
        #expect(small > 0)
        #expect(large == small, "\(small) instructions with 20 documents, \(large) with 420")
    }

    @Test(.enabled(if: TestBackend.available.contains(.postgres))) func postgresReadsTheSameRowsAtAnySize() async throws {
        let address = try await #require(try TestBackend.postgres.freshDatabase())
        // One connection: its statistics are sent to the server when it is told to, below.
        let connections = try await PostgresConnections(url: address, size: 1, logger: Logger(label: "test"))
        let index = try await PostgresIndex(connections: connections)
        let (queue, downloads) = (PostgresJobQueue(index: index), PostgresDownloadQueue(index: index))
        // Its VACUUM ANALYZE is bulk work a busy machine may take past a service query's 30 s deadline.
        let observer = try await PostgresConnections(url: address, size: 1, queryTimeout: .seconds(300), logger: Logger(label: "test"))
        // A table's counts are everyone's: autovacuum's reads are kept out (the test vacuums itself).
        for table in try await observer.query("SELECT relname FROM pg_stat_user_tables") {
            try await observer.query(
                PostgresQuery(unsafeSQL: "ALTER TABLE \(try table["relname"].decode(String.self)) SET (autovacuum_enabled = false)"))
        }
        /// Rows read from tables and index entries read so far (by the store's connection: the
        /// observer's own, its VACUUM ANALYZE's, are sent on before).
        func rowsRead() async throws -> Int {
            // The server sends a connection's statistics on when it next goes idle, told to here.
            for connection in [connections, observer] {
                try await connection.query("SELECT pg_stat_force_next_flush()")
                try await connection.query("SELECT 1")
            }
            return try await observer.withConnection { session in
                try await session.query("SELECT pg_stat_clear_snapshot()")
                return try await session.query(
                    """
                    SELECT (SELECT COALESCE(SUM(seq_tup_read + COALESCE(idx_tup_fetch, 0)), 0) FROM pg_stat_user_tables)::bigint
                         + (SELECT COALESCE(SUM(idx_tup_read), 0) FROM pg_stat_user_indexes)::bigint AS n
                    """
                ).first?["n"].decode(Int.self) ?? 0
            }
        }
        /// The second read: the first one also marks lapsed shares.
        func rowsToRead() async throws -> Int {
            try await Self.readFigures(queue, downloads, index: index)
            let before = try await rowsRead()
            try await Self.readFigures(queue, downloads, index: index)
            return try await rowsRead() - before
        }
        // Vacuumed and analysed after each fill, as autovacuum would: every upload updates the figures'
        // and counters' rows, and until their old versions are cleaned away an index search steps over
        // them (about two per document here). The planner also reads the ends of an index for a range
        // beyond its statistics (the sweep's `expires_at <= now()`): a few entries that vary.
        try await Self.fill(queue, index: index, from: 0, count: 20)
        try await observer.query("VACUUM ANALYZE")
        let small = try await rowsToRead()
        try await Self.fill(queue, index: index, from: 20, count: 400)
        try await observer.query("VACUUM ANALYZE")
        let large = try await rowsToRead()
        #expect(small > 0)
        #expect(large <= small + 20, "\(small) rows read with 20 documents, \(large) with 420: reading any table whole reads 400 more")
    }
}
