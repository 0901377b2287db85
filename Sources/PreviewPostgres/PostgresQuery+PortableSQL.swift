import PostgresNIO
import PreviewStore

extension PostgresQuery {
    /// `sql` rendered for PostgreSQL, its values bound.
    package init(_ sql: PortableSQL) {
        let (text, values) = sql.rendered(in: .postgres)
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case let .text(text): binds.append(text)
            case let .integer(integer): binds.append(integer)
            case let .real(real): binds.append(real)
            case let .date(date): binds.append(date)
            case let .bool(bool): binds.append(bool)
            case .null: binds.appendNull()
            }
        }
        self.init(unsafeSQL: text, binds: binds)
    }
}
