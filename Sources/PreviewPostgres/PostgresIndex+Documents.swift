import Foundation
import PostgresNIO
import PreviewCore
import PreviewDomain
import PreviewStore

/// Listing, versions, deletion and relabelling in PostgreSQL; the same behaviour as ``SQLiteIndex``'s.
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

    private static func versionsQuery(of id: String, lock: Bool = false) -> PostgresQuery {
        "\(unescaped: IndexSQL.versionsOfOne) WHERE v.id = \(id) ORDER BY d.version DESC \(unescaped: lock ? "FOR UPDATE OF d" : "")"
    }

    public func delete(documentID id: String, version: Int?) async throws -> Deletion {
        try await connections.transaction { session in
            let all = try await session.query(Self.versionsQuery(of: id, lock: true)).map(Document.init(row:))
            let removed = all.filter { version == nil || $0.version == version }
            guard !removed.isEmpty else { return Deletion(versions: [], cancelledJobs: 0) }
            let ids = removed.map(\.id)
            let cancelled = try await session.query(
                """
                DELETE FROM jobs WHERE document_id = ANY(\(ids)) RETURNING status
                """
            ).filter { [.queued, .processing].contains(try $0.decode("status", as: JobRecord.Status.self)) }.count
            if let newest = all.first(where: { !ids.contains($0.id) }) {
                try await session.query("UPDATE shares SET document_id = \(newest.id) WHERE version IS NULL AND document_id = ANY(\(ids))")
            }
            try await session.query("UPDATE shares SET revoked_at = now() WHERE revoked_at IS NULL AND document_id = ANY(\(ids))")
            try await session.query("DELETE FROM documents WHERE id = ANY(\(ids))")
            return Deletion(versions: removed, cancelledJobs: cancelled)
        }
    }

    public func relabel(documentID id: String, to labels: Relabelling) async throws -> Document? {
        try await connections.transaction { session in
            let versions = try await session.query(Self.versionsQuery(of: id, lock: true)).map(Document.init(row:))
            guard let latest = versions.first else { return nil }
            if labels.renames(latest) {
                // The same lock that numbers versions: an upload under the new label waits for this rename.
                let type = Document.typeColumn(labels.type)
                if let lock = SQLDialect.postgres.serialize(name: Document.nameKey(owner: latest.owner, type: labels.type, title: labels.title)) {
                    try await session.query(PostgresQuery(lock))
                }
                let taken = try await session.query(
                    """
                    SELECT 1 FROM documents WHERE owner = \(latest.owner) AND type = \(type) AND title = \(labels.title) LIMIT 1
                    """)
                if !taken.isEmpty { throw LabelTaken(type: labels.type, title: labels.title) }
            }
            for version in labels.applied(to: versions) {
                try await session.query(
                    """
                    UPDATE documents SET title = \(version.title), title_key = \(version.titleKey), type = \(version.typeColumn),
                        description = \(version.description), school = \(version.school), search_key = \(version.searchKey)
                    WHERE id = \(version.id)
                    """)
            }
            return try await session.query("SELECT * FROM documents WHERE id = \(id)").first.map(Document.init(row:))
        }
    }

    // MARK: Shares

}
