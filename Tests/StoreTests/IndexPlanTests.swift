import Foundation
import GRDB
import Logging
import PostgresNIO
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDomain
@testable import PreviewPostgres
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// What grows with the store is read from an index in the order it is returned, so a listing's page
/// and the statistics cost about the same at any size (issue 43): checked on each backend's plans,
/// which do not depend on how many rows there are (SQLite is never analysed; PostgreSQL is asked
/// with sequential scans and sorts priced out, so a plan that still has one has no index to use).
@Suite struct IndexPlanTests {
    /// Each sort alone, each filter alone (newest first), a text search in each order, store-wide
    /// and for one owner, first and next pages.
    static let listings: [DocumentQuery] = {
        let after = { (sort: DocumentQuery.Sort) in DocumentCursor(sort: sort, keys: Array(repeating: "1", count: sort.keyCount)) }
        var queries = DocumentQuery.Sort.allCases.map { DocumentQuery(sort: $0) }
        queries += [
            DocumentQuery(type: "resume"), DocumentQuery(kind: "pdf"), DocumentQuery(school: "North High"), DocumentQuery(status: .failed),
            DocumentQuery(shared: true), DocumentQuery(shared: false)
        ]
        queries += DocumentQuery.Sort.allCases.map { DocumentQuery(containing: "resume", sort: $0) }
        queries += queries.map { query in
            var next = query
            next.after = after(query.sort)
            return next
        }
        return queries
            + queries.map { query in
                var mine = query
                mine.owner = "ana"
                return mine
            }
    }()

    /// The text searches of ``listings``: a lookup reads its matches (at most ``TextSearch/matchLimit``)
    /// from the search index before ordering them; a walk of the order's start reads at most
    /// ``TextSearch/walkedRows``.
    static let lookUps = listings.filter { $0.containing != nil }

    @Test(.blocking) func sqliteListsAndCountsFromIndexes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let index = try SQLiteIndex(url: folder.url.appendingPathComponent("index.sqlite"))
        try index.pool.read { db in
            func plan(_ statement: PortableSQL) throws -> [String] {
                let (sql, values) = statement.rendered(in: .sqlite)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(values.map(\.databaseValue)))
                    .map { $0["detail"] as String }
            }
            /// A table read whole, or rows sorted after they are read.
            func growsWithTheStore(_ step: String) -> Bool {
                step.contains("TEMP B-TREE") || (step.hasPrefix("SCAN") && !step.contains("INDEX") && step != "SCAN CONSTANT ROW")
            }
            for query in Self.listings {
                let steps = try plan(DocumentListing.statement(query, in: .sqlite))
                #expect(!steps.contains(where: growsWithTheStore), "\(query): \(steps)")
                let candidates = try plan(DocumentListing.candidates(query, upTo: TextSearch.walkedRows, in: .sqlite))
                // Its own co-routine holds at most the limit's rows.
                #expect(!candidates.filter { $0 != "SCAN candidates" }.contains(where: growsWithTheStore), "\(query): candidates \(candidates)")
            }
            for query in Self.lookUps {
                let steps = try plan(DocumentListing.statement(query, search: .lookUp, in: .sqlite))
                #expect(
                    steps.first?.hasPrefix("SCAN document_search VIRTUAL TABLE") == true && !steps.dropFirst().contains { $0.hasPrefix("SCAN") },
                    "\(query): \(steps)")
            }
            // The start of the order: its rowids from the order's index (at most ``TextSearch/walkedRows``),
            // each row by rowid, in that order (no sort: the walk stops at a full page).
            for query in Self.lookUps {
                let steps = try plan(DocumentListing.statement(query, search: .walkStart, in: .sqlite))
                #expect(
                    steps.count == 4 && steps[0] == "CO-ROUTINE t" && steps[1].contains("USING INDEX documents_current_")
                        && steps[3] == "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)", "\(query): \(steps)")
            }
            // A search newest or oldest first: a page's worth of the search index's rowids in their
            // order, each row by `search_order`, then a second's rowids at most: nothing else of the
            // store is read (the scans of `first`, `edge` and their subqueries hold a page at most).
            for query in Self.lookUps where TextSearch.indexHolds(query.sort) {
                let steps = try plan(DocumentListing.statement(query, search: .readInOrder, in: .sqlite))
                let first = try #require(steps.firstIndex(of: "MATERIALIZE first"), "\(steps)")
                let scans = steps.filter { $0.hasPrefix("SCAN") && !["SCAN first", "SCAN edge"].contains($0) && !$0.hasPrefix("SCAN (subquery-") }
                #expect(
                    steps[first + 1].hasPrefix("SCAN s VIRTUAL TABLE")
                        && steps[first + 2] == "SEARCH d USING INDEX documents_search_order (search_order=?)"
                        && scans.count == 2 && scans.allSatisfy { $0.hasPrefix("SCAN s VIRTUAL TABLE") }
                        && steps.filter { $0.hasPrefix("SEARCH") }.allSatisfy { $0.hasPrefix("SEARCH d USING INDEX documents_search_order") },
                    "\(query): \(steps)")
            }
            for owner in [nil, "ana"] {
                let matches = try plan(DocumentListing.textMatches("resume", owner: owner, upTo: TextSearch.matchLimit, in: .sqlite))
                #expect(matches.contains { $0.contains("document_search VIRTUAL TABLE") }, "\(matches)")
            }
            // A store-wide search: the search indexes first, then each row by key; one owner's pages
            // from the owner's documents, each by key.
            for owner in [nil, "ana"] {
                let query = PageSearch.Query(needle: "biology", labelKey: "biology", owner: owner, type: nil, readings: ["a", "b"])
                let labels = try plan(PageSearch.labelStatement(query, in: .sqlite))
                #expect(
                    labels.first?.hasPrefix("SCAN s VIRTUAL TABLE") == true && !labels.dropFirst().contains(where: growsWithTheStore), "\(labels)")
                let pages = try plan(PageSearch.pageStatement(query, in: .sqlite))
                #expect(pages.first?.hasPrefix("SCAN s VIRTUAL TABLE") == true && !pages.dropFirst().contains(where: growsWithTheStore), "\(pages)")
            }
            let owned = PageSearch.Query(needle: "biology", labelKey: "biology", owner: "ana", type: nil, readings: ["a"])
            for statement in [PageSearch.ownedPages(owned, in: .sqlite)!, PageSearch.walkStatement(owned, in: .sqlite)] {
                let steps = try plan(statement)
                #expect(
                    steps.contains { $0.contains("USING INDEX documents_current_owner") }
                        && !steps.filter { $0 != "SCAN owned" }.contains(where: growsWithTheStore),
                    "\(steps)")
            }
            let statistics: [PortableSQL] = [
                IndexStatistics.figures(owner: nil), IndexStatistics.lapsedShares(in: .sqlite),
                "\(raw: StatusCounts.query("jobs", JobRecord.Status.self))"
            ]
            for statement in statistics {
                let steps = try plan(statement)
                #expect(!steps.contains(where: growsWithTheStore) && steps.contains { $0.hasPrefix("SEARCH") }, "\(statement): \(steps)")
            }
        }
    }

    @Test(.enabled(if: TestBackend.available.contains(.postgres))) func postgresListsAndCountsFromIndexes() async throws {
        let address = try await #require(try TestBackend.postgres.freshDatabase())
        // The table is filled and vacuumed below: bulk work a busy machine may take past the
        // 30 s deadline of a service's query, which is not what this test is about.
        let connections = try await PostgresConnections(url: address, size: 1, queryTimeout: .seconds(300), logger: Logger(label: "test"))
        _ = try await PostgresIndex(connections: connections)
        try await connections.withConnection { session in
            try await session.query("SET enable_seqscan = off")
            try await session.query("SET enable_sort = off")
            func plan(_ query: PostgresQuery) async throws -> String {
                var explained = query
                explained.sql = "EXPLAIN " + query.sql
                return try await session.query(explained).map { try $0["QUERY PLAN"].decode(String.self) }.joined(separator: "\n")
            }
            for query in Self.listings {
                let steps = try await plan(PostgresQuery(DocumentListing.statement(query, in: .postgres)))
                #expect(!steps.contains("Seq Scan") && !steps.contains("Sort") && !steps.contains("Bitmap"), "\(query): \(steps)")
                let candidates = try await plan(PostgresQuery(DocumentListing.candidates(query, upTo: TextSearch.walkedRows, in: .postgres)))
                #expect(!candidates.contains("Seq Scan"), "\(query): candidates \(candidates)")
            }
            // Any index of the latest versions serves an empty table; with titles of its own the table
            // shows which one a title lookup is read from.
            try await session.query("INSERT INTO blobs (sha256, size, mime, created_at) VALUES ('plan', 1, 'application/pdf', now())")
            try await session.query(
                """
                INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, version, preview_status,
                                       created_at)
                SELECT 'doc-' || i, 'owner-' || i % 10, '', 'title ' || i, 'title ' || i, 'title ' || i || E'\n\nf.pdf', 'f.pdf', 'plan', 'pdf',
                       'application/pdf', 1, 1, 'ready',
                       now() - i * interval '1 second' FROM generate_series(1, 5000) AS n(i)
                """)
            // As autovacuum leaves a table: the search index's pending entries merged, the statistics fresh.
            try await session.query("VACUUM (ANALYZE) documents")
            for query in Self.lookUps {
                let steps = try await plan(PostgresQuery(DocumentListing.statement(query, search: .walkStart, in: .postgres)))
                #expect(!steps.contains("Seq Scan") && !steps.contains("Sort") && steps.contains("using documents_current_"), "\(query): \(steps)")
            }
            // One owner's next page after a cursor whose first key most rows share (no shares, a type,
            // the same instant) is read from the owner's index, not the store-wide one filtered.
            for sort in DocumentQuery.Sort.allCases {
                let first = "0000000000", keys = [sort == .newest || sort == .oldest ? "1795000000000000" : first, "", "doc-607"]
                let query = DocumentQuery(owner: "owner-7", sort: sort, after: DocumentCursor(sort: sort, keys: Array(keys.suffix(sort.keyCount))))
                let steps = try await plan(PostgresQuery(DocumentListing.statement(query, in: .postgres)))
                #expect(steps.contains("using documents_current_owner_") && !steps.contains("Filter: (owner ="), "\(sort): \(steps)")
            }
            // A search newest or oldest first: each step seeks in the postings' index, and each hit's row
            // is read by its id as the walk yields it; nothing is hashed, scanned or read by bitmap (the
            // sorts order a step's seeks, one a gram, and the page).
            for query in Self.lookUps where TextSearch.indexHolds(query.sort) {
                let steps = try await plan(PostgresQuery(DocumentListing.statement(query, search: .readInOrder, in: .postgres)))
                #expect(
                    steps.contains("using search_postings_pkey") && steps.contains("Nested Loop Left Join")
                        && steps.contains("CTE Scan on walk") && steps.contains("Index Scan using documents_pkey")
                        && !steps.contains("Seq Scan") && !steps.contains("Hash") && !steps.contains("Bitmap"), "\(query): \(steps)")
            }
            for query in Self.lookUps + [DocumentQuery(), DocumentQuery(owner: "ana")] {
                let statement =
                    query.containing == nil
                    ? DocumentListing.textMatches("resume", owner: query.owner, upTo: TextSearch.sortedMatchLimit, in: .postgres)
                    : DocumentListing.statement(query, search: .lookUp, in: .postgres)
                let steps = try await plan(PostgresQuery(statement))
                // One owner's matches: the trigram index or the owner's documents, as the planner finds fewer.
                let read =
                    query.owner == nil
                    ? ["Bitmap Index Scan on documents_current_search_trigrams"]
                    : ["Bitmap Index Scan on documents_current_search_trigrams", "Index Scan using documents_current_owner"]
                #expect(!steps.contains("Seq Scan") && read.contains(where: steps.contains), "\(query): \(steps)")
            }
            let search = PageSearch.Query(needle: "title 12", labelKey: "title 12", owner: nil, type: nil, readings: ["a"])
            let labels = try await plan(PostgresQuery(PageSearch.labelStatement(search, in: .postgres)))
            #expect(labels.contains("Bitmap Index Scan on documents_current_search_trigrams") && !labels.contains("Seq Scan"), "\(labels)")
            var owned = search
            owned.owner = "owner-7"
            let walk = try await plan(PostgresQuery(PageSearch.walkStatement(owned, in: .postgres)))
            #expect(walk.contains("documents_current_owner") && !walk.contains("Seq Scan"), "\(walk)")
            for query in [
                PostgresQuery(IndexStatistics.figures(owner: "ana")), PostgresQuery(IndexStatistics.sweep(in: .postgres)),
                PostgresQuery(IndexStatistics.lapsedShares(in: .postgres)),
                PostgresQuery(unsafeSQL: StatusCounts.query("jobs", JobRecord.Status.self))
            ] {
                let steps = try await plan(query)
                #expect(!steps.contains("Seq Scan"), "\(query.sql): \(steps)")
            }
        }
    }
}
