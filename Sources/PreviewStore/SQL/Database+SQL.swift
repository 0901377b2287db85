import GRDB

extension Database {
    /// Runs `sql` (rendered for SQLite, its clock read now) and returns its rows as records: a
    /// query's, or those an `UPDATE … RETURNING` wrote.
    public func records<Record: FetchableRecord>(_ sql: SQL) throws -> [Record] {
        let (text, values) = sql.rendered(in: .sqlite)
        return try Record.fetchAll(self, sql: text, arguments: StatementArguments(values.map(\.databaseValue)))
    }
}
