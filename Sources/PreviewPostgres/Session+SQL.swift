import PostgresNIO
import PreviewStore

extension Session {
    /// Runs `sql` rendered for PostgreSQL, its values bound, and returns its rows.
    @discardableResult
    public func run(_ sql: SQL) throws -> [PostgresRandomAccessRow] {
        let (text, values) = sql.rendered(in: .postgres)
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case let .text(text): binds.append(text)
            case let .integer(integer): binds.append(integer)
            case let .real(real): binds.append(real)
            case let .date(date): binds.append(date)
            case .null: binds.appendNull()
            }
        }
        return try query(PostgresQuery(unsafeSQL: text, binds: binds))
    }
}
