import Foundation
import PostgresNIO
import PreviewStore

extension PostgresIndex {
    public var dialect: SQLDialect { .postgres }

    public func readPlan<T: Sendable>(_ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T {
        try await connections.withConnection { session in try await session.run(make(), PortableRow.init(row:)) }
    }

    public func readPlan<T: Sendable>(timeout: Duration, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T {
        let milliseconds = max(1, timeout.nanoseconds / 1_000_000)
        do {
            return try await connections.transaction { session in
                try await session.query("SET LOCAL statement_timeout = \(unescaped: String(milliseconds))")
                return try await session.run(make(), PortableRow.init(row:))
            }
        } catch let error as PostgresDriverError where error.isCancelled {
            throw QueryTimedOut()
        }
    }

    public func runPlan<T: Sendable>(serializing key: String?, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T {
        try await connections.transaction { session in
            if let key { try await session.query("SELECT pg_advisory_xact_lock(hashtext(\(key)))") }
            return try await session.run(make(), PortableRow.init(row:))
        }
    }
}

extension PortableRow {
    /// The row's columns of the types our schema uses (text, integers, reals, booleans).
    init(row: PostgresRandomAccessRow) throws {
        var values: [String: SQLValue] = [:]
        for cell in row {
            guard cell.bytes != nil else { values[cell.columnName] = .null; continue }
            values[cell.columnName] =
                switch cell.dataType {
                case .int2, .int4, .int8: .integer(Int64(try cell.decode(Int.self)))
                case .float4, .float8: .real(try cell.decode(Double.self))
                case .bool: .bool(try cell.decode(Bool.self))
                case .timestamptz, .timestamp: .date(try cell.decode(Date.self))
                default: .text(try cell.decode(String.self))
                }
        }
        self.init(values: values)
    }
}
