import Foundation
import PostgresNIO
import PreviewCore
import PreviewDomain
import PreviewStore

/// Listing in PostgreSQL (its text search over `tsvector` and trigrams); the same answers as ``SQLiteIndex``'s.
extension PostgresIndex {
    public func list(_ query: DocumentQuery) async throws -> DocumentPage {
        try await list(query, search: nil)
    }

    /// A listing's page, its title search made the given way (nil: the way ``TextSearch`` chooses),
    /// a reading in order in at most `steps` steps.
    func list(_ query: DocumentQuery, search: TextSearch?, steps: Int = TextSearch.leapSteps) async throws -> DocumentPage {
        if query.shared != nil || query.sort == .mostShared { try await sweepLapsedShares() }
        let page = { (search: TextSearch) in
            let rows = try await connections.query(PostgresQuery(DocumentListing.statement(query, search: search, steps: steps, in: .postgres)))
            if search == .readInOrder, try rows.contains(where: { try $0["reading_cut"].decode(Bool.self) }) { throw TextSearch.ReadingCut() }
            return DocumentListing.page(
                try rows.map { row in
                    (try Document(row: row), try (0..<query.sort.keyCount).map { try row["sort_key_\($0)"].decode(String.self) })
                }, of: query)
        }
        if let search { return try await page(search) }
        func count(_ statement: PortableSQL) async throws -> Int {
            try await connections.query(PostgresQuery(statement)).first?["n"].decode(Int.self) ?? 0
        }
        return try await TextSearch.page(
            for: query, page: page,
            matches: { key, limit in try await count(DocumentListing.textMatches(key, owner: query.owner, upTo: limit, in: .postgres)) },
            candidates: { limit in try await count(DocumentListing.candidates(query, upTo: limit, in: .postgres)) })
    }

}
