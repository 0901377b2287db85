import Foundation
import PostgresNIO
import PreviewCore
import PreviewDomain
import PreviewStore

/// Records from rows selected with `*` (column names as in the schema).
extension Document {
    /// A document row, read as either backend's rows are (``Document/init(row:)`` over a ``PortableRow``).
    init(row: PostgresRandomAccessRow) throws {
        try self.init(row: try PortableRow(row: row))
    }
}

extension JobRecord {
    /// A job row, read as either backend's rows are (``JobRecord/init(row:)`` over a ``PortableRow``).
    init(row: PostgresRandomAccessRow) throws {
        try self.init(row: try PortableRow(row: row))
    }
}

extension PostgresRandomAccessRow {
    /// A text column as the Swift type it spells (a kind, a status, an error code).
    func decode<Value: RawRepresentable<String>>(_ column: String, as type: Value.Type) throws -> Value {
        let text = try self[column].decode(String.self)
        return try Value(rawValue: text).orThrow("\(column) \(text)")
    }

    func decodeIfPresent<Value: RawRepresentable<String>>(_ column: String, as type: Value.Type) throws -> Value? {
        guard let text = try self[column].decode(String?.self) else { return nil }
        return try Value(rawValue: text).orThrow("\(column) \(text)")
    }
}

extension Optional {
    /// The value, or an error naming what the database held that this version cannot read.
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw PostgresDriverError("Unreadable \(what) in the database.") }
        return self
    }
}
