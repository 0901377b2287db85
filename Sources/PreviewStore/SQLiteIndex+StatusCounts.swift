import Foundation
import GRDB
import PreviewCore

extension SQLiteIndex {
    /// How many rows of `table` (the jobs, the downloads) have each status; 0 for those none has.
    func statusCounts<Status: CaseIterable & Hashable & RawRepresentable & Sendable>(in table: String) async throws -> [Status: Int]
    where Status.RawValue == String {
        try await pool.read { db in
            var counts = Dictionary(uniqueKeysWithValues: Status.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: StatusCounts.query(table, Status.self)) {
                if let status = Status(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }
}
