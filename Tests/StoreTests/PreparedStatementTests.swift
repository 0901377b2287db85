import Foundation
import GRDB
import GRDBSQLite
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// SQLite keeps a statement of a fixed text prepared once per connection, and never one whose text
/// holds a list of values: what it keeps is bounded by our texts, not by what callers send.
@Suite struct PreparedStatementTests {
    @Test func fixedTextsArePreparedOnceAndListsNotKept() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let index = try SQLiteIndex(url: folder.url.appendingPathComponent("index.sqlite"))
        try index.pool.write { db in
            let before = Self.preparedStatements(db)
            for owner in 0..<50 {
                _ = try db.rows("SELECT count(*) AS n FROM documents WHERE owner = \("owner-\(owner)")")
            }
            #expect(Self.preparedStatements(db) == before + 1)
            for length in 1...50 {
                let owners = (0..<length).map { "owner-\($0)" }
                let rows = try db.rows("SELECT count(*) AS n FROM documents WHERE owner IN (\(PortableSQL.list(owners)))")
                #expect(rows.count == 1)
                let alternatives = PortableSQL.anyOf(owners.map { "owner = \($0)" })
                _ = try db.rows("SELECT count(*) AS n FROM documents WHERE \(alternatives)")
            }
            #expect(Self.preparedStatements(db) == before + 1)
        }
    }

    /// The statements prepared on `db`'s connection and not yet finalised.
    private static func preparedStatements(_ db: Database) -> Int {
        var count = 0
        var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
        while let current = statement {
            count += 1
            statement = sqlite3_next_stmt(db.sqliteConnection, current)
        }
        return count
    }
}
