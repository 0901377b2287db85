import Foundation
import GRDB
import Logging
import PostgresNIO
import PreviewBackendTestSupport
import PreviewPostgres
import PreviewStore
import PreviewTestSupport
import Testing

/// The two backends' migrators build the same schema: tables, columns, indexes and triggers by name
/// (types are each dialect's own). The search indexes of labels and pages are each dialect's own
/// too (``TextSearch``, ``PageSearch``): FTS5 tables kept by triggers in SQLite, trigram indexes and
/// postings in PostgreSQL.
@Suite struct SchemaParityTests {
    struct Schema: Equatable {
        var columns: Set<String> = []
        var indexes: Set<String> = []
        var triggers: Set<String> = []
    }

    @Test(.enabled(if: TestBackend.available.contains(.postgres))) func bothMigratorsBuildTheSameSchema() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sqlite = try SQLiteIndex(url: folder.url.appendingPathComponent("index.sqlite"))
        var embedded = try await sqlite.pool.read { db in
            var embedded = Schema()
            for table in try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                    """)
            {
                for column in try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo(?)", arguments: [table]) {
                    embedded.columns.insert("\(table).\(column["name"] as String)")
                }
            }
            embedded.indexes = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
            embedded.triggers = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'"))
            return embedded
        }

        let address = try await #require(try TestBackend.postgres.freshDatabase())
        let connections = try await PostgresConnections(url: address, size: 1, logger: Logger(label: "test"))
        _ = try await PostgresIndex(connections: connections)
        var shared = Schema()
        for row in try await connections.query(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name <> 'schema_migrations'
            """)
        {
            shared.columns.insert("\(try row["table_name"].decode(String.self)).\(try row["column_name"].decode(String.self))")
        }
        // Primary keys and unique constraints are the tables' own (SQLite names them automatically).
        for row in try await connections.query(
            """
            SELECT i.indexname FROM pg_indexes i WHERE i.schemaname = 'public' AND i.tablename <> 'schema_migrations'
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
            """)
        {
            shared.indexes.insert(try row["indexname"].decode(String.self))
        }
        for row in try await connections.query("SELECT DISTINCT trigger_name FROM information_schema.triggers WHERE trigger_schema = 'public'") {
            shared.triggers.insert(try row["trigger_name"].decode(String.self))
        }
        // Each search index of labels keeps the creation order its own way (``TextSearch/readInOrder``):
        // SQLite's in its rowids, with each version's owner as a trigram; PostgreSQL's in postings.
        #expect(
            embedded.columns.remove("documents.search_order") != nil && embedded.columns.remove("documents.owner_key") != nil
                && embedded.indexes.remove("documents_search_order") != nil)
        let postings: Set = ["search_postings.gram", "search_postings.created_at", "search_postings.id"]
        let postingTriggers: Set = ["search_postings_inserted", "search_postings_changed", "search_postings_deleted"]
        #expect(postings.isSubset(of: shared.columns) && postingTriggers.isSubset(of: shared.triggers))
        shared.columns.subtract(postings)
        shared.triggers.subtract(postingTriggers)
        for (table, column, triggers, trigrams) in [
            ("document_search", "search_key", ["search_inserted", "search_deleted", "search_changed"], "documents_current_search_trigrams"),
            ("page_search", "search_text", ["page_search_inserted", "page_search_deleted"], "page_texts_search_trigrams")
        ] {
            let sqliteSearchIndex = (columns: embedded.columns.filter { $0.hasPrefix(table) }, triggers: Set(triggers))
            #expect(sqliteSearchIndex.columns.contains("\(table).\(column)") && sqliteSearchIndex.triggers.isSubset(of: embedded.triggers))
            embedded.columns.subtract(sqliteSearchIndex.columns)
            embedded.triggers.subtract(sqliteSearchIndex.triggers)
            #expect(shared.indexes.remove(trigrams) != nil)
        }
        #expect(
            embedded.columns == shared.columns,
            """
            only in SQLite: \(embedded.columns.subtracting(shared.columns).sorted()); \
            only in PostgreSQL: \(shared.columns.subtracting(embedded.columns).sorted())
            """
        )
        #expect(
            embedded.indexes == shared.indexes,
            """
            only in SQLite: \(embedded.indexes.subtracting(shared.indexes).sorted()); \
            only in PostgreSQL: \(shared.indexes.subtracting(embedded.indexes).sorted())
            """
        )
        #expect(embedded.triggers == shared.triggers)
    }
}
