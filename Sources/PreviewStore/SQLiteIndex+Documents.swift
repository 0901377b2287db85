import Foundation
import GRDB
import PreviewCore
import PreviewDomain

/// Listing, versions, deletion and relabelling in the embedded index.
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
                        (try DocumentRow(row: row).document, (0..<query.sort.keyCount).map { row["sort_key_\($0)"] as String })
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

    private static func versions(of id: String, in db: Database) throws -> [Document] {
        try DocumentRow.fetchAll(db, sql: "\(IndexSQL.versionsOfOne) WHERE v.id = ? ORDER BY d.version DESC", arguments: [id]).map(\.document)
    }

    public func delete(documentID id: String, version: Int?) async throws -> Deletion {
        try await pool.write { db in
            let removed = try Self.versions(of: id, in: db).filter { version == nil || $0.version == version }
            guard !removed.isEmpty else { return Deletion(versions: [], cancelledJobs: 0) }
            let ids = String(decoding: try JSONEncoder().encode(removed.map(\.id)), as: UTF8.self)
            let cancelled =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM jobs WHERE status IN (?, ?) AND document_id IN (SELECT value FROM json_each(?))
                        """, arguments: [JobRecord.Status.queued.rawValue, JobRecord.Status.processing.rawValue, ids]) ?? 0
            try db.execute(sql: "DELETE FROM jobs WHERE document_id IN (SELECT value FROM json_each(?))", arguments: [ids])
            if let newest = try Self.versions(of: id, in: db).first(where: { kept in !removed.contains { $0.id == kept.id } }) {
                try db.execute(
                    sql: "UPDATE shares SET document_id = ? WHERE version IS NULL AND document_id IN (SELECT value FROM json_each(?))",
                    arguments: [newest.id, ids])
            }
            try db.execute(
                sql: """
                    UPDATE shares SET revoked_at = ? WHERE revoked_at IS NULL AND document_id IN (SELECT value FROM json_each(?))
                    """, arguments: [Date(), ids])
            try db.execute(sql: "DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))", arguments: [ids])
            return Deletion(versions: removed, cancelledJobs: cancelled)
        }
    }

    public func relabel(documentID id: String, to labels: Relabelling) async throws -> Document? {
        try await pool.write { db in
            let versions = try Self.versions(of: id, in: db)
            guard let latest = versions.first else { return nil }
            if labels.renames(latest) {
                let taken =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM documents WHERE owner = ? AND type = ? AND title = ?)",
                        arguments: [latest.owner, Document.typeColumn(labels.type), labels.title]) ?? false
                if taken { throw LabelTaken(type: labels.type, title: labels.title) }
            }
            for version in labels.applied(to: versions) { try DocumentRow(version).update(db) }
            return try DocumentRow.fetchOne(db, key: id)?.document
        }
    }

    // MARK: Shares

}
