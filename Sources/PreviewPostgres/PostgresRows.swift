import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// Records from rows selected with `*` (column names as in the schema).
extension Document {
    /// A document row, read as either backend's rows are (``Document/init(row:)`` over a ``PortableRow``).
    init(row: PostgresRandomAccessRow) throws {
        try self.init(row: try PortableRow(row: row))
    }
}

extension JobRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), documentID: try row["document_id"].decode(String.self),
            kind: try row.decode("kind", as: Kind.self), status: try row.decode("status", as: Status.self),
            attempts: try row["attempts"].decode(Int.self), availableAt: try row["available_at"].decode(Date.self),
            leaseOwner: try row["lease_owner"].decode(String?.self),
            leaseExpiresAt: try row["lease_expires_at"].decode(Date?.self),
            errorCode: try row.decodeIfPresent("error_code", as: PreviewError.Code.self), errorMessage: try row["error_message"].decode(String?.self),
            progress: try row["progress"].decode(Double?.self),
            createdAt: try row["created_at"].decode(Date.self), updatedAt: try row["updated_at"].decode(Date.self))
    }
}

extension PostgresRandomAccessRow {
    func hash(_ column: String) throws -> BlobHash {
        let hex = try self[column].decode(String.self)
        return try BlobHash(hex: hex).orThrow("SHA-256 \(hex)")
    }

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
