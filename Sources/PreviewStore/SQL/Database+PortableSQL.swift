import GRDB

extension Database {
    /// Runs `sql` (rendered for SQLite, its clock read now) and returns its rows as records: a
    /// query's, or those an `UPDATE … RETURNING` wrote.
    public func records<Record: FetchableRecord>(_ sql: PortableSQL) throws -> [Record] {
        let (text, arguments) = rendered(sql)
        return try Record.fetchAll(self, sql: text, arguments: arguments)
    }

    /// Runs `sql` and returns its rows.
    public func rows(_ sql: PortableSQL) throws -> [Row] {
        let (text, arguments) = rendered(sql)
        return try Row.fetchAll(self, sql: text, arguments: arguments)
    }

    private func rendered(_ sql: PortableSQL) -> (text: String, arguments: StatementArguments) {
        let (text, values) = sql.rendered(in: .sqlite)
        return (text, StatementArguments(values.map(\.databaseValue)))
    }
}
