import Foundation
import GRDB
import PreviewDomain

/// A row as either backend returns it: its columns' values by name, so that a record of ours is
/// read from both with one initializer.
public struct PortableRow: Sendable {
    package var values: [String: SQLValue]

    package init(values: [String: SQLValue]) {
        self.values = values
    }

    package func text(_ column: String) -> String? {
        if case let .text(text)? = values[column] { return text }
        return nil
    }

    package func real(_ column: String) -> Double? {
        switch values[column] {
        case let .real(real)?: real
        case let .integer(integer)?: Double(integer)
        default: nil
        }
    }

    /// A boolean: PostgreSQL's, or SQLite's 0 and 1.
    package func bool(_ column: String) -> Bool? {
        switch values[column] {
        case let .bool(bool)?: bool
        case let .integer(integer)?: integer != 0
        default: nil
        }
    }

    /// A date: PostgreSQL's, or SQLite's text as GRDB writes dates.
    package func date(_ column: String) -> Date? {
        switch values[column] {
        case let .date(date)?: date
        case let .text(text)?: Date.fromDatabaseValue(text.databaseValue)
        default: nil
        }
    }

    /// A blob's hash, held as its hex text; nil when the column holds none.
    package func hash(_ column: String) -> BlobHash? {
        text(column).flatMap(BlobHash.init(hex:))
    }

    package func integer(_ column: String) -> Int64? {
        switch values[column] {
        case let .integer(integer)?: integer
        case let .real(real)?: Int64(exactly: real.rounded(.towardZero))
        default: nil
        }
    }
}

extension PortableRow: FetchableRecord {
    public init(row: Row) {
        var values: [String: SQLValue] = [:]
        for (column, value) in row {
            values[column] =
                switch value.storage {
                case let .int64(integer): .integer(integer)
                case let .double(real): .real(real)
                case let .string(text): .text(text)
                case .blob, .null: .null
                }
        }
        self.init(values: values)
    }
}
