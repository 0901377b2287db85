import Foundation
import GRDB
import PreviewCore

/// The storage figures counted again from every row, for `verify` (the kept ones: ``DocumentIndex/statistics(owner:)``).
extension SQLiteIndex {
    public func recountStatistics(owner: String?) async throws -> StorageStatistics {
        try await sweepLapsedShares()
        return try await pool.read { db in
            let scope = owner == nil ? "1 = 1" : "owner = :owner"
            let arguments: StatementArguments = owner.map { ["owner": $0] } ?? [:]
            let current = """
                SELECT d.* FROM documents d WHERE \(scope) AND version = (SELECT MAX(version) FROM documents x
                WHERE x.owner = d.owner AND x.type = d.type AND x.title = d.title)
                """
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
            func grouped(_ column: String) throws -> [String: Int] {
                let rows = try Row.fetchAll(
                    db, sql: "SELECT \(column) AS name, COUNT(*) AS n FROM (\(current)) WHERE \(column) IS NOT NULL GROUP BY \(column)",
                    arguments: arguments)
                return Dictionary(
                    uniqueKeysWithValues: rows.map { row in
                        let name: String = row["name"]
                        return (name.isEmpty ? StorageStatistics.unspecifiedType : name, row["n"] as Int)
                    })
            }
            // Previews of the originals, and of office documents' PDF pivots (pages are rendered from those).
            let originals = "SELECT sha256 FROM documents WHERE \(scope)"
            let derivatives = """
                SELECT COALESCE(b.size, 0) AS size FROM derivatives v LEFT JOIN blobs b ON b.sha256 = v.result_sha256
                WHERE v.source_sha256 IN (\(originals))
                OR v.source_sha256 IN (SELECT p.result_sha256 FROM derivatives p WHERE p.operation = '\(DerivativeOperation.convert.rawValue)' AND \
                p.source_sha256 IN (\(originals)))
                """
            var statistics = StorageStatistics(
                owner: owner,
                documents: try count("SELECT COUNT(*) FROM (\(current))"),
                versions: try count("SELECT COUNT(*) FROM documents WHERE \(scope)"),
                byType: try grouped("type"),
                byKind: try grouped("kind"),
                logicalBytes: try count("SELECT COALESCE(SUM(size), 0) FROM documents WHERE \(scope)"),
                storedBytes: try count(
                    """
                    SELECT COALESCE(SUM(size), 0) FROM blobs WHERE sha256 IN (SELECT sha256 FROM documents WHERE \(scope))
                    """),
                previews: try count("SELECT COUNT(*) FROM (\(derivatives))"),
                previewBytes: try count("SELECT COALESCE(SUM(size), 0) FROM (\(derivatives))")
            )
            statistics.sharedDocuments = try Self.sharedDocuments(owner: owner, in: db)
            statistics.bySchool = try grouped("school")
            if owner == nil {
                statistics.evictedPreviews = try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'evicted_previews'") ?? 0
            }
            return statistics
        }
    }

    /// The owner's (or everyone's) documents with a live share, counted from the shares.
    static func sharedDocuments(owner: String?, in db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM documents d WHERE (? IS NULL OR d.owner = ?) AND \(IndexSQL.isLatestVersion)
                AND \(IndexSQL.liveShares(now: now)) > 0
                """, arguments: [owner, owner]) ?? 0
    }
}

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
