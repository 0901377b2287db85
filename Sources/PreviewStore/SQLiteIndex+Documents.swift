import Foundation
import GRDB
import PreviewCore
import PreviewDomain

/// Listing in the embedded index (its text search over FTS5); the same answers as PostgreSQL's.
extension SQLiteIndex {
    public func list(_ query: DocumentQuery) async throws -> DocumentPage {
        try await list(query, search: nil)
    }

    /// A listing's page, its title search made the given way (nil: the way ``TextSearch`` chooses).
    func list(_ query: DocumentQuery, search: TextSearch?) async throws -> DocumentPage {
        if query.shared != nil || query.sort == .mostShared { try await sweepLapsedShares() }
        // Each step a read of its own: a page's rows come from one statement, and the counts that
        // choose the way only steer.
        let page = { (search: TextSearch) in
            try await self.pool.read { db in
                let rows = try db.rows(DocumentListing.statement(query, search: search, in: .sqlite))
                return DocumentListing.page(
                    try rows.map { row in
                        (try Document(row: PortableRow(row: row)), (0..<query.sort.keyCount).map { row["sort_key_\($0)"] as String })
                    }, of: query)
            }
        }
        if let search { return try await page(search) }
        func count(_ statement: PortableSQL) async throws -> Int {
            try await pool.read { db in try db.rows(statement).first?["n"] ?? 0 }
        }
        return try await TextSearch.page(
            for: query, page: page,
            matches: { key, limit in try await count(DocumentListing.textMatches(key, owner: query.owner, upTo: limit, in: .sqlite)) },
            candidates: { limit in try await count(DocumentListing.candidates(query, upTo: limit, in: .sqlite)) })
    }

}
