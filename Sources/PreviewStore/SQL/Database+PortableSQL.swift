import GRDB

extension Database {
    /// Runs `sql` (rendered for SQLite, its clock read now) and returns its rows: a query's, or
    /// those an `INSERT` or `UPDATE … RETURNING` wrote.
    ///
    /// A statement of a fixed text is prepared once per connection and kept: preparing compiles
    /// the triggers an insert fires, which cost more than running them. A text holding a list
    /// of values is prepared each time, so the kept statements stay as few as our texts.
    package func rows(_ sql: PortableSQL) throws -> [Row] {
        let (text, arguments) = rendered(sql)
        let statement = sql.holdsList ? try makeStatement(sql: text) : try cachedStatement(sql: text)
        return try Row.fetchAll(statement, arguments: arguments)
    }

    private func rendered(_ sql: PortableSQL) -> (text: String, arguments: StatementArguments) {
        let (text, values) = sql.rendered(in: .sqlite)
        return (text, StatementArguments(values.map(\.databaseValue)))
    }
}

extension Database {
    /// Runs `plan`'s statements in this connection's transaction, its rows read as records.
    package func run<Record: FetchableRecord, Result>(_ plan: SQLPlan<Record, Result>) throws -> Result {
        try run(plan, reading: Record.init(row:))
    }

    /// Runs `plan`'s statements in this connection's transaction, each row read by `record` as
    /// either backend's rows are (``PortableRow``).
    package func run<Record, Result>(_ plan: SQLPlan<Record, Result>, _ record: (PortableRow) throws -> Record) throws -> Result {
        try run(plan) { row in try record(PortableRow(row: row)) }
    }

    private func run<Record, Result>(_ plan: SQLPlan<Record, Result>, reading record: (Row) throws -> Record) throws -> Result {
        var next = plan
        while true {
            switch next {
            case let .done(result): return result
            case let .statement(sql, rest): next = try rest(try rows(sql).map(record))
            case let .compute(step): next = try step()
            }
        }
    }

    /// Runs `statements` one after another.
    package func execute(_ statements: [PortableSQL]) throws {
        for sql in statements { _ = try rows(sql) }
    }
}
